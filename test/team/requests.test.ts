import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { tempDir } from '../helpers/tmp';

async function newTeam(t: Parameters<typeof tempDir>[0]): Promise<Team> {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  await team.spawnMember('alice', 'coder');
  await team.spawnMember('bob', 'tester');
  return team;
}

test('shutdown: request → approved by the addressee; the requester is told', async (t) => {
  const team = await newTeam(t);
  const req = await team.requestShutdown('lead', 'alice');
  assert.equal(req.status, 'pending');
  const inbox = await team.mailbox.history('alice');
  assert.equal(inbox.at(-1)?.type, 'shutdown_request');
  assert.equal((inbox.at(-1) as { request_id: string }).request_id, req.request_id);
  const r = await team.respondShutdown('alice', req.request_id, true, 'all done');
  assert.ok(r.ok);
  assert.equal((await team.requests.get(req.request_id))?.status, 'approved');
  const reply = (await team.mailbox.history('lead')).at(-1);
  assert.equal(reply?.type, 'shutdown_response');
  assert.equal((reply as { approve: boolean }).approve, true);
});

test('only teammates can be asked to shut down: the lead and the user are refused, nothing recorded', async (t) => {
  const team = await newTeam(t);
  for (const who of ['lead', 'user']) await assert.rejects(team.requestShutdown('user', who), /reserved and cannot be a teammate/);
  assert.deepEqual(await team.requests.list({ kind: 'shutdown' }), []);
});

test('responses are refused: wrong sender, wrong kind, unknown id, twice, hostile id', async (t) => {
  const team = await newTeam(t);
  const req = await team.requestShutdown('lead', 'alice');
  const forged = await team.respondShutdown('bob', req.request_id, true);
  assert.equal(forged.ok, false);
  assert.match((forged as { error: string }).error, /addressed to alice/);
  const wrongKind = await team.decidePlan('alice', req.request_id, true);
  assert.match((wrongKind as { error: string }).error, /shutdown request, not plan/);
  const unknown = await team.respondShutdown('alice', 'req_nope', true);
  assert.match((unknown as { error: string }).error, /unknown request_id/);
  const hostile = await team.respondShutdown('alice', '../../etc/passwd', true);
  assert.match((hostile as { error: string }).error, /invalid request_id/);
  assert.equal((await team.requests.get(req.request_id))?.status, 'pending');
  assert.ok((await team.respondShutdown('alice', req.request_id, false, 'busy')).ok);
  const twice = await team.respondShutdown('alice', req.request_id, true);
  assert.match((twice as { error: string }).error, /already rejected/);
  assert.equal((await team.requests.get(req.request_id))?.status, 'rejected');
});

test('plan: rejected with feedback, resubmitted, approved; only the approver (or user) decides', async (t) => {
  const team = await newTeam(t);
  const first = await team.submitPlan('alice', '1. rewrite everything', 'lead');
  assert.equal((await team.mailbox.history('lead')).at(-1)?.type, 'plan_approval_request');
  assert.equal((await team.decidePlan('bob', first.request_id, true)).ok, false);
  assert.ok((await team.decidePlan('lead', first.request_id, false, 'too big')).ok);
  const answer = (await team.mailbox.history('alice')).at(-1) as { type: string; approve: boolean; feedback: string };
  assert.equal(answer.type, 'plan_approval_response');
  assert.equal(answer.approve, false);
  assert.equal(answer.feedback, 'too big');
  const second = await team.submitPlan('alice', '1. small change', 'lead');
  assert.ok((await team.decidePlan('user', second.request_id, true)).ok, 'the user may always decide');
  assert.equal((await team.requests.get(second.request_id))?.status, 'approved');
  const pending = await team.requests.list({ status: 'pending' });
  assert.deepEqual(pending, []);
});

test('a re-spawn expires requests addressed to the earlier incarnation', async (t) => {
  const team = await newTeam(t);
  const stale = await team.requestShutdown('lead', 'alice');
  const plan = await team.submitPlan('alice', 'old plan', 'user');
  await team.roster.setStatus('alice', 'shutdown');
  await team.spawnMember('alice', 'coder');
  assert.equal((await team.requests.get(stale.request_id))?.status, 'expired');
  assert.equal((await team.requests.get(plan.request_id))?.status, 'expired');
  const late = await team.respondShutdown('alice', stale.request_id, true);
  assert.match((late as { error: string }).error, /already expired/);
  const fresh = await team.requestShutdown('lead', 'alice');
  assert.equal(fresh.incarnation, 2);
  assert.ok((await team.respondShutdown('alice', fresh.request_id, true)).ok);
});
