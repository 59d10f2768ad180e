// The protocol tool family (shutdown_request, shutdown_response, plan_approval both sides,
// request_plan) alone, through its narrow host (ProtocolToolHost: the team's files and the
// settings) — no runner, no model. The team is a real one in a temporary folder: the requests
// and inboxes are what these tools read and write.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Team } from '../../../src/core/team/team';
import { protocolTools, type ProtocolToolHost } from '../../../src/core/runtime/tools/protocols';
import { ToolSet, type AgentHandle, type ToolHost } from '../../../src/core/runtime/tools';
import { DEFAULT_SETTINGS, type RuntimeSettings } from '../../../src/core/runtime/types';
import { tempDir } from '../../helpers/tmp';

async function fakes(t: TestContext, planApproval: RuntimeSettings['planApproval'] = 'lead') {
  const team = await new Team(await tempDir(t)).init();
  t.after(() => team.dispose());
  await team.spawnMember('amy', 'dev');
  const host: ProtocolToolHost = { team, settings: () => ({ ...DEFAULT_SETTINGS, planApproval }) };
  const agentOf = (name: string) => {
    const ended: string[] = [];
    const agent = { name, kind: name === 'lead' ? 'lead' : 'teammate', endAfterRound: (r: string) => void ended.push(r) } as unknown as AgentHandle;
    const tools = new ToolSet(protocolTools.filter((d) => d.agents.includes(agent.kind)));
    // Sound: every handler of the family is typed against ProtocolToolHost.
    return { ended, call: (tool: string, input: unknown) => tools.run(tool, input, agent, host as ToolHost) };
  };
  return { team, lead: agentOf('lead'), amy: agentOf('amy') };
}

test('shutdown_request asks the teammate by mail; its shutdown_response approving ends it after the round', async (t) => {
  const f = await fakes(t);
  const asked = await f.lead.call('shutdown_request', { teammate: 'amy' });
  assert.ok(!asked.isError, asked.text);
  const id = /request_id=(\S+)\./.exec(asked.text)?.[1];
  assert.ok(id, asked.text);
  assert.deepEqual((await f.team.mailbox.history('amy')).map((m) => m.type), ['shutdown_request']);
  const answered = await f.amy.call('shutdown_response', { request_id: id, approve: true });
  assert.match(answered.text, /Shutdown approved/);
  assert.deepEqual(f.amy.ended, ['shutdown']);
  assert.equal((await f.team.requests.get(id!))?.status, 'approved');
});

test("a shutdown_response to a request that is not the teammate's is an error result, and nothing ends", async (t) => {
  const f = await fakes(t);
  const r = await f.amy.call('shutdown_response', { request_id: 'req_nope_1', approve: true });
  assert.equal(r.isError, true);
  assert.deepEqual(f.amy.ended, []);
});

test('plan_approval: the teammate submits to the configured approver; the lead decides only when that is the lead', async (t) => {
  const f = await fakes(t);
  const sent = await f.amy.call('plan_approval', { plan: 'Add a test, then the fix.' });
  const id = /request_id=(\S+)\)/.exec(sent.text)?.[1];
  assert.ok(id, sent.text);
  assert.match(sent.text, /to lead\./);
  const decided = await f.lead.call('plan_approval', { request_id: id, approve: false, feedback: 'Smaller steps.' });
  assert.ok(!decided.isError, decided.text);
  assert.equal((await f.team.requests.get(id!))?.status, 'rejected');

  const u = await fakes(t, 'user');
  const s2 = await u.amy.call('plan_approval', { plan: 'Plan B.' });
  const id2 = /request_id=(\S+)\)/.exec(s2.text)?.[1];
  const refused = await u.lead.call('plan_approval', { request_id: id2, approve: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /approved by the user/);
  assert.equal((await u.team.requests.get(id2!))?.status, 'pending');
});

test('request_plan puts a teammate in plan mode and names who decides', async (t) => {
  const f = await fakes(t, 'user');
  const r = await f.lead.call('request_plan', { teammate: 'amy', reason: 'risky change' });
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /the user decides/);
  const mode = (await f.team.roster.get('amy'))?.plan_mode;
  assert.deepEqual([mode?.by, mode?.reason], ['lead', 'risky change']);
});
