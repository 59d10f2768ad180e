// Team tools: spawning and listing teammates, and mail between agents. The rules (who may
// be messaged, who a broadcast reaches) live in core/team; these only translate.
import { z } from 'zod';
import { describeFailed } from '../../team/mailbox';
import { knownModel, unknownModelWarning } from '../../roles/models';
import { formatMail } from '../prompts';
import type { SpawnInput } from '../types';
import { fail, ok, toolFamily, type AgentHandle, type ToolHost, type ToolResult } from './definition';

/** What the team family uses of the host: the team's files, the spawner, whether the lead is busy. */
export type TeamToolHost = Pick<ToolHost, 'team' | 'spawner' | 'leadBusy'>;
const defineTool = toolFamily<keyof TeamToolHost>();

export const teammateName = z.string();

export const spawnTeammate = defineTool({
  name: 'spawn_teammate',
  description: 'Start a persistent teammate, or restart an idle or shut-down one.',
  input: z.object({
    name: teammateName,
    role: z.string().min(1),
    prompt: z.string().min(1),
    isolation: z.enum(['none', 'worktree', 'container']).nullish().describe('"worktree": its own branch, for parallel edits of the same files or risky changes; "container": the same, in its own container.'),
    agent_type: z.string().nullish().describe('A definition from your instructions.'),
    model: z.string().nullish().describe('Default: the team\'s; e.g. opus, haiku, openai:<id>, vscode:<vendor>/<family>.'),
    plan_mode_required: z.boolean().nullish().describe('Changes wait for an approved plan (default: agentTeams.requirePlan).'),
    task: z.number().int().positive().nullish().describe('A task id claimed for it first.'),
  }),
  agents: ['lead'],
  async run({ name, role, prompt, isolation, agent_type, model, plan_mode_required, task }, a, h) {
    const m = await h.spawner.spawn({ name, role, prompt, isolation: isolation ?? undefined, agent_type, model, plan_mode_required, task }, a.name).catch(async (err: Error) => {
      // Tasks this reply reserved for it would wait forever for a teammate that never came.
      const freed = a.spawnsInReply.has(name) && !(await h.team.roster.get(name)) ? await h.team.tasks.unreserve(name) : [];
      if (freed.length) err.message += `. Task${freed.length > 1 ? 's' : ''} ${freed.map((t) => `#${t.id}`).join(', ')} reserved for ${name} went back to the board unowned`;
      throw err;
    });
    const where = m.branch ? ` in its ${m.container ? 'container' : 'worktree'} on branch ${m.branch}` : '';
    const how = [m.agent_type ? `from ${m.agent_type}` : '', m.model ? `model ${m.model}` : '', m.plan_mode ? 'in plan mode: it plans first and changes nothing until its plan is approved' : '']
      .filter(Boolean).join('; ');
    const odd = m.model && !knownModel(m.model) ? ` Note: ${unknownModelWarning(m.model)}.` : '';
    const current = (await h.team.roster.get(name))?.current_task;
    const on = current && (!task || current === task) ? `task #${current} (claimed for it${task ? '' : ', reserved for it on the board'}) and ` : '';
    const again = (m.incarnation ?? 1) > 1 ? ' It was here before and keeps its earlier conversation.' : '';
    return ok(`Spawned ${m.name} (${m.role})${where}${how ? `, ${how}` : ''}; it is working on ${on}your prompt.${again}${odd}`);
  },
  // agentTeams.confirmTeam: the spawns of one reply are proposed to the user as one team, before any starts.
  beforeReply: (inputs, a, h) => h.spawner.proposeTeam(inputs as SpawnInput[], a.name),
});

export const listTeammates = defineTool({
  name: 'list_teammates',
  description: 'Teammates: status, role, task.',
  input: z.object({}),
  agents: ['lead'],
  async run(_i, _a, h) {
    const members = await h.team.roster.list();
    if (!members.length) return ok('No teammates yet.');
    return ok(members.map((m) => `${m.name} (${m.role}): ${m.status}${m.current_task ? `, task #${m.current_task}` : ''}`).join('\n'));
  },
});

async function broadcastFrom(content: string, a: AgentHandle, h: TeamToolHost): Promise<ToolResult> {
  const r = await h.team.mailbox.broadcastReport(a.name, content);
  if (!r.sent.length && !r.failed.length) return ok('No teammates to broadcast to.');
  const got = r.sent.length ? `Broadcast to ${r.sent.map((m) => m.to).join(', ')}.` : 'Nobody got the broadcast.';
  // Who got it is said either way, so a retry goes only to those who did not.
  return r.failed.length ? { text: `${got} Not delivered to: ${describeFailed(r)}.`, isError: r.sent.length === 0 } : ok(got);
}

/** What the sender should expect of the recipient: an answer soon, or after its current work. */
async function recipientState(to: string, h: TeamToolHost): Promise<string> {
  if (to === 'lead') return h.leadBusy?.() ? ' (the lead is working: it reads this between its tool calls)' : ' (the lead was idle: woken now)';
  const m = await h.team.roster.get(to).catch(() => undefined);
  if (m?.status === 'idle') return ' (it was idle: woken now)';
  if (m?.status === 'working') return ' (it is working: it reads this between its tool calls)';
  return '';
}

export const sendMessage = defineTool({
  name: 'send_message',
  description: 'Message a teammate, "lead" or "user".',
  input: z.object({
    to: z.string(),
    content: z.string().min(1),
    msg_type: z.enum(['message', 'broadcast']).nullish().describe('"broadcast": to every teammate except you (`to` ignored).'),
  }),
  agents: ['lead', 'teammate'],
  async run({ to, content, msg_type }, a, h) {
    if (msg_type === 'broadcast') return broadcastFrom(content, a, h);
    if (to === a.name) return fail('You cannot message yourself.');
    const m = await h.team.mailbox.send({ from: a.name, to, type: 'message', content }).catch((err: Error) => err);
    if (m instanceof Error) {
      if (!/has shut down/.test(m.message)) throw m;
      return fail(`Not sent: ${to} has shut down and reads no mail (spawn_teammate starts it again).`);
    }
    return ok(`Sent to ${m.to}${await recipientState(m.to, h)}.`);
  },
});

export const readInbox = defineTool({
  name: 'read_inbox',
  description: 'Messages reach you by themselves: do not poll. Read by hand only for news mid-way through a long series of calls.',
  input: z.object({}),
  agents: ['lead', 'teammate'],
  // Mail is added after every tool round and starts a turn, so nobody needs it by default; a
  // teammate whose definition's tools list names it gets it (docs/file-formats.md, "Agent definitions").
  optIn: ['lead', 'teammate'],
  async run(_i, a, h) {
    const d = await h.team.mailbox.unread(a.name, a.inboxPosition());
    a.noteInboxRead(d.cursor);
    return ok(d.messages.length ? d.messages.map(formatMail).join('\n\n') : 'No new messages.');
  },
});

export const teamTools = [spawnTeammate, listTeammates, sendMessage, readInbox];
