// The task-board tool family alone, through its narrow host interface (ToolHost) and agent
// handle, with fakes: no runner, no model, no other tool. The board is a real one in a
// temporary folder (it is the store the tools exist to change); worktrees are the fake host's.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Team } from '../../../src/core/team/team';
import { taskTools } from '../../../src/core/runtime/tools/tasks';
import type { AgentHandle, ToolDefinition, ToolHost } from '../../../src/core/runtime/tools';
import { tempDir } from '../../helpers/tmp';

function tool(name: string, kind: 'lead' | 'teammate' = 'teammate'): ToolDefinition {
  return taskTools.find((t) => t.name === name && t.agents.includes(kind))!;
}

async function fakes(t: TestContext) {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('amy', 'tester');
  const moves: string[] = [];
  const ended: string[] = [];
  const agent = {
    name: 'amy', kind: 'teammate', cwd: root, homeDir: root, signal: new AbortController().signal,
    // Either way of moving counts (now, or once the reply's calls have run).
    setWorkdir(this: { cwd: string }, d: string) {
      moves.push(d);
      this.cwd = d;
    },
    moveAfterReply: (d: string) => void moves.push(d), spawnsInReply: new Set(),
    endAfterRound: (r: string) => void ended.push(r),
  } as unknown as AgentHandle;
  const host = {
    team,
    workdirs: {
      dir: async (w: string) => join(root, '.worktrees', w),
      problem: async (w: string) => (w === 'broken' ? 'not a git repository' : null),
    },
    // agentTeams.merge.auto off: a completed task queues nothing.
    mergeQueue: { onTaskCompleted: async () => null, requeueFixed: async () => null },
  } as unknown as ToolHost;
  const call = async (name: string, input: unknown, kind?: 'lead' | 'teammate') => {
    const def = tool(name, kind);
    const p = def.parse(input);
    if (!p.ok) return { text: p.error, isError: true };
    return def.run(p.data, agent, host);
  };
  return { team, root, moves, ended, call };
}

test('task_create: several tasks in one call, a later one blocked by an earlier ref; a worktree the host refuses creates none', async (t) => {
  const f = await fakes(t);
  const refused = await f.call('task_create', { subject: 'x', worktree: 'broken' });
  assert.ok(refused.isError);
  assert.match(refused.text, /Not created: worktree "broken" cannot be used: not a git repository/);
  assert.deepEqual(await f.team.tasks.list(), []);
  const made = await f.call('task_create', { tasks: [{ ref: 'a', subject: 'build' }, { subject: 'test', blockedBy: ['a'] }] });
  assert.ok(!made.isError, made.text);
  const [build, tst] = await f.team.tasks.list();
  assert.deepEqual(tst!.blockedBy, [build!.id]);
  assert.match((await f.call('task_create', {})).text, /give a subject, or tasks/);
});

test('claim_task moves the teammate into the task\'s worktree; completing it moves it home; idle ends the round', async (t) => {
  const f = await fakes(t);
  await f.call('task_create', { subject: 'in a worktree', worktree: 'amy' });
  const claimed = await f.call('claim_task', { task_id: 1 });
  assert.ok(!claimed.isError, claimed.text);
  assert.deepEqual(f.moves, [join(f.root, '.worktrees', 'amy')]);
  assert.equal((await f.team.roster.get('amy'))?.current_task, 1);
  const done = await f.call('task_update', { task_id: 1, status: 'completed' });
  assert.ok(!done.isError, done.text);
  assert.deepEqual(f.moves.slice(1), [f.root]);
  assert.equal((await f.team.roster.get('amy'))?.current_task, null);
  assert.match((await f.call('task_get', { task_id: 9 })).text, /Task 9 not found/);
  await f.call('idle', {});
  assert.deepEqual(f.ended, ['idle']);
});
