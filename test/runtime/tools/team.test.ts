// The team tool family (spawn_teammate, list_teammates, send_message, read_inbox, broadcast)
// alone, through its narrow host (TeamToolHost: the team's files, the spawner, whether the
// lead is busy) with a fake spawner: no runner, no model, no other tool. The team is a real
// one in a temporary folder (the roster and inboxes are what these tools read and write).
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Member } from '../../../src/shared/schemas';
import { Team } from '../../../src/core/team/team';
import { teamTools, type TeamToolHost } from '../../../src/core/runtime/tools/team';
import { ToolSet, type AgentHandle, type ToolHost } from '../../../src/core/runtime/tools';
import type { SpawnInput } from '../../../src/core/runtime/types';
import { tempDir } from '../../helpers/tmp';

async function fakes(t: TestContext, who: 'lead' | 'amy' = 'lead') {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  const spawned: { input: SpawnInput; by: string }[] = [];
  const proposed: { inputs: readonly SpawnInput[]; by: string }[] = [];
  let refuse: string | null = null;
  let leadBusy = false;
  // The fake spawner writes the roster as the real one does, and nothing else (no agent runs).
  const host: TeamToolHost = {
    team,
    spawner: {
      async spawn(input, by) {
        spawned.push({ input, by });
        if (refuse) throw new Error(refuse);
        return team.spawnMember(input.name, input.role, input.model ? { model: input.model } : {});
      },
      async proposeTeam(inputs, by) {
        proposed.push({ inputs, by });
      },
    },
    leadBusy: () => leadBusy,
  };
  const read: number[] = [];
  const agent = {
    name: who, kind: who === 'lead' ? 'lead' : 'teammate', spawnsInReply: new Set<string>(),
    inboxPosition: () => 0, noteInboxRead: (c: number) => void read.push(c),
  } as unknown as AgentHandle & { spawnsInReply: Set<string> };
  const tools = new ToolSet(teamTools.filter((d) => d.agents.includes(agent.kind)));
  // Sound: every handler of the family is typed against TeamToolHost.
  const call = (name: string, input: unknown) => tools.run(name, input, agent, host as ToolHost);
  return {
    team, spawned, proposed, agent, tools, host, read, call,
    refuse: (why: string) => void (refuse = why),
    busy: (b: boolean) => void (leadBusy = b),
  };
}

test('spawn_teammate hands the spawner the call with the lead as spawner and says what started', async (t) => {
  const f = await fakes(t);
  const r = await f.call('spawn_teammate', { name: 'bob', role: 'tester', prompt: 'Test it.', model: 'made-up-model' });
  assert.ok(!r.isError, r.text);
  assert.deepEqual(f.spawned, [{ by: 'lead', input: { name: 'bob', role: 'tester', prompt: 'Test it.', isolation: undefined, agent_type: undefined, model: 'made-up-model', plan_mode_required: undefined, task: undefined } }]);
  assert.match(r.text, /^Spawned bob \(tester\), model made-up-model; it is working on your prompt\./);
  assert.match(r.text, /Note: .*made-up-model/);
  assert.equal((await f.team.roster.get('bob'))?.role, 'tester');
});

test('a spawn the spawner refuses gives the tasks this reply reserved for the name back to the board', async (t) => {
  const f = await fakes(t);
  f.agent.spawnsInReply.add('zed');
  await f.team.tasks.createMany([{ subject: 'for zed', owner: 'zed', blockedBy: [] }], f.agent.spawnsInReply);
  f.refuse('the team is full');
  const r = await f.call('spawn_teammate', { name: 'zed', role: 'dev', prompt: 'Go.' });
  assert.ok(r.isError);
  assert.equal(r.text, 'the team is full. Task #1 reserved for zed went back to the board unowned');
  assert.equal((await f.team.tasks.get(1))?.owner, '');
});

test("before a reply's calls run, the spawner is shown the reply's spawns (the ones that parse), once", async (t) => {
  const f = await fakes(t);
  await f.tools.beforeReply([
    { name: 'spawn_teammate', input: { name: 'ann', role: 'dev', prompt: 'A.' } },
    { name: 'list_teammates', input: {} },
    { name: 'spawn_teammate', input: { name: 'bo' } },
    { name: 'spawn_teammate', input: { name: 'cy', role: 'qa', prompt: 'C.', plan_mode_required: true } },
  ], f.agent, f.host as ToolHost);
  assert.deepEqual(f.proposed.map((p) => [p.by, p.inputs.map((i) => i.name)]), [['lead', ['ann', 'cy']]]);
  assert.deepEqual(f.spawned, [], 'nothing is spawned before the calls run');
  await f.tools.beforeReply([{ name: 'send_message', input: { to: 'x', content: 'y' } }], f.agent, f.host as ToolHost);
  assert.equal(f.proposed.length, 1, 'a reply without spawns proposes nothing');
});

test('send_message says whether the recipient will read it now or between its tool calls, and refuses the impossible', async (t) => {
  const f = await fakes(t, 'amy');
  await f.team.spawnMember('amy', 'dev');
  await f.team.spawnMember('bob', 'dev');
  await f.team.roster.patch('bob', { status: 'idle' });
  assert.equal((await f.call('send_message', { to: 'bob', content: 'hi' })).text, 'Sent to bob (it was idle: woken now).');
  f.busy(true);
  assert.equal((await f.call('send_message', { to: 'lead', content: 'done' })).text, 'Sent to lead (the lead is working: it reads this between its tool calls).');
  f.busy(false);
  assert.equal((await f.call('send_message', { to: 'lead', content: 'done' })).text, 'Sent to lead (the lead was idle: woken now).');
  assert.deepEqual(await f.call('send_message', { to: 'amy', content: 'me' }), { text: 'You cannot message yourself.', isError: true });
  await f.team.retireMember('bob');
  const gone = await f.call('send_message', { to: 'bob', content: 'hi' });
  assert.ok(gone.isError);
  assert.match(gone.text, /Not sent: bob has shut down/);
});

test('read_inbox hands over the unread mail and records how far it read; a broadcast reaches everyone else', async (t) => {
  const f = await fakes(t, 'amy');
  await f.team.spawnMember('amy', 'dev');
  await f.team.spawnMember('bob', 'dev');
  await f.team.mailbox.send({ from: 'lead', to: 'amy', type: 'message', content: 'status?' });
  const r = await f.call('read_inbox', {});
  assert.match(r.text, /status\?/);
  assert.equal(f.read.length, 1);
  assert.ok(f.read[0]! > 0);
  const b = await f.call('send_message', { to: 'ignored', content: 'news', msg_type: 'broadcast' });
  assert.equal(b.text, 'Broadcast to bob.');
  assert.match(JSON.stringify((await f.team.mailbox.unread('bob', 0)).messages), /news/);
});
