// What the user does to the work of this host's agents: restart an MCP server, kill a
// background job, revert a change an agent made to a file.
import { z } from 'zod';
import { killJobForUser } from '../../runtime/job-wakes';
import { ChangeLog } from '../../watch/change-log';
import { revertChange } from '../../watch/changes';
import { stateWords } from '../../mcp/state';
import type { AgentRunner } from '../../runtime/agent-runner';
import { partsOf } from '../parts';
import type { TeamSession } from '../team-session';
import { ActionError, defineAction } from './action';

function running(session: TeamSession): AgentRunner {
  const { runner } = partsOf(session);
  if (!runner) throw new ActionError('The team is not running here.');
  return runner;
}

export const mcpRestart = defineAction({
  id: 'mcpRestart', summary: 'restart an MCP server of this host (docs/mcp.md)',
  args: z.object({ server: z.string().min(1) }),
  async run({ session }, a) {
    const mcp = running(session).mcp;
    await mcp.restart(a.server);
    return mcp.list().find((x) => x.name === a.server);
  },
  describe: (s, a) => (s ? `MCP server "${s.name}": ${stateWords(s.state)}.` : `No MCP server "${a.server}".`),
});

export const killJob = defineAction({
  id: 'killJob', summary: "kill an agent's background job; the agent is told the user killed it",
  args: z.object({ job: z.object({ owner: z.string().min(1), id: z.string().min(1) }) }),
  run: ({ session }, a) => killJobForUser(running(session).jobs, partsOf(session).team, a.job.owner, a.job.id),
  describe: (j) => `${j.owner}: ${j.id} ${j.state}.`,
});

export const revertChangeAction = defineAction({
  id: 'revertChange', summary: "undo an agent's change to a file, if the file still holds what it wrote",
  args: z.object({ id: z.string().min(1) }),
  async run({ session }, a) {
    const log = new ChangeLog(session.root);
    const c = (await log.list()).changes.find((x) => x.id === a.id);
    if (!c) throw new ActionError(`no change ${a.id}`);
    return revertChange(log, c, 'user');
  },
  describe: (r) => r.message,
});
