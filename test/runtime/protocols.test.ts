import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

const lastSent = (h: Awaited<ReturnType<typeof harness>>, agent: string) =>
  JSON.stringify(h.api.requests(agent).at(-1)?.body.messages.at(-1) ?? '');

test('plan: writes refused before approval; rejected with feedback, revised, approved by the user', async (t) => {
  const h = await harness(t);
  h.api.script('gus',
    reply(toolUse('plan_approval', { plan: '1. rewrite the world' })),
    reply(toolUse('write_file', { path: 'early.txt', content: 'too soon' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'gus', role: 'dev', prompt: 'Plan first.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('gus'))?.status === 'idle', 5000, 'gus idle');
  assert.match(lastSent(h, 'gus'), /refused while your plan awaits approval/);
  await assert.rejects(stat(join(h.root, 'early.txt')), /ENOENT/);
  const [first] = await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' });
  assert.equal(first?.to, 'user');
  // Rejected: gus is woken with the feedback and submits a revised plan.
  h.api.script('gus', reply(toolUse('plan_approval', { plan: '1. small fix' })), reply(toolUse('idle', {})));
  await h.rt.decidePlan(first!.request_id, false, 'Too big: only fix the bug.');
  await waitFor(() => h.api.requests('gus').length >= 4, 5000);
  assert.match(JSON.stringify(h.api.requests('gus')[3]!.body.messages.at(-1)), /plan_approval_response.*approve=\\"false\\".*Too big: only fix the bug/);
  await waitFor(async () => (await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' })).length === 1, 5000, 'second plan');
  const [second] = await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' });
  h.api.script('gus', reply(toolUse('write_file', { path: 'fix.txt', content: 'fixed' })), reply(toolUse('idle', {})));
  await h.rt.decidePlan(second!.request_id, true);
  await waitFor(() => stat(join(h.root, 'fix.txt')).then(() => true, () => false), 5000, 'write after approval');
  assert.equal(await readFile(join(h.root, 'fix.txt'), 'utf8'), 'fixed');
  await assert.rejects(h.rt.decidePlan(second!.request_id, true), /already approved/);
});

test('plan approval by the lead when agentTeams.planApproval = lead', async (t) => {
  const h = await harness(t, { planApproval: 'lead', wakeLeadOnMail: true });
  h.api.script('hal', reply(toolUse('plan_approval', { plan: 'step 1' })), reply(toolUse('idle', {})));
  h.api.script('lead', (r) => {
    const m = /request_id=\\"(req_[a-z0-9_]+)\\"/.exec(JSON.stringify(r.body.messages));
    return m ? reply(toolUse('plan_approval', { request_id: m[1], approve: true, feedback: 'go' })) : 'no request seen';
  }, 'ok');
  h.api.script('hal', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'hal', role: 'dev', prompt: 'Plan.' });
  await waitFor(async () => (await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'approved' })).length === 1, 8000, 'lead approved');
  await waitFor(() => /approve=\\"true\\"/.test(JSON.stringify(h.api.requests('hal').at(-1)?.body.messages)), 5000, 'hal told');
});

test('shutdown: rejected, then approved; tasks released; forged and stale responses ignored', async (t) => {
  const h = await harness(t);
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'long job' });
  h.api.script('ivy', reply(toolUse('claim_task', { task_id: task.id }), toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ivy', role: 'dev', prompt: 'Claim the job.' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(task.id))?.owner === 'ivy', 5000);
  // ivy declines the first shutdown request it sees and accepts any later one.
  const seen: string[] = [];
  h.api.setDefault((r) => {
    const m = /type=\\"shutdown_request\\" request_id=\\"(req_[a-z0-9_]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
    if (!m) return reply(toolUse('idle', {}));
    seen.push(m[1]!);
    const approve = seen.length > 1;
    return reply(toolUse('shutdown_response', { request_id: m[1], approve, reason: approve ? 'done' : 'busy' }));
  });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ivy'))?.status === 'idle', 5000);
  const r1 = await h.rt.requestShutdown('ivy');
  await waitFor(async () => (await partsOf(h.rt).team.requests.get(r1.request_id))?.status === 'rejected', 5000, 'rejected');
  assert.notEqual((await partsOf(h.rt).team.roster.get('ivy'))?.status, 'shutdown');
  // A forged answer from someone else is refused.
  const forged = await partsOf(h.rt).team.respondShutdown('lead', r1.request_id, true);
  assert.equal(forged.ok, false);
  const r2 = await h.rt.requestShutdown('ivy');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ivy'))?.status === 'shutdown', 5000, 'shut down');
  assert.equal((await partsOf(h.rt).team.requests.get(r2.request_id))?.status, 'approved');
  const t1 = await partsOf(h.rt).team.tasks.get(task.id);
  assert.equal(t1?.status, 'pending');
  assert.equal(t1?.owner, '');
  const told = (await partsOf(h.rt).team.mailbox.history('user')).filter((m) => m.type === 'shutdown_response');
  assert.deepEqual(told.map((m) => (m as { approve: boolean }).approve), [false, true]);
  await assert.rejects(userSends(h.rt, 'ivy', 'hello?'), /has shut down/);
});

test('a stale shutdown request never stops a re-spawned teammate', async (t) => {
  const h = await harness(t);
  h.api.script('jay', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'jay', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('jay'))?.status === 'idle', 5000);
  // A request is sent, but jay is force-stopped before answering it.
  const stale = await partsOf(h.rt).team.requests.create({ kind: 'shutdown', from: 'lead', to: 'jay', subject: 'jay', incarnation: 1 });
  await h.rt.stopTeammate('jay');
  assert.equal((await partsOf(h.rt).team.roster.get('jay'))?.status, 'shutdown');
  h.api.script('jay', (r) => {
    const m = /req_[a-z0-9_]+/.exec(JSON.stringify(r.body.messages));
    return reply(toolUse('shutdown_response', { request_id: m ? m[0] : stale.request_id, approve: true }));
  }, reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'jay', role: 'dev', prompt: `Old business: answer ${stale.request_id}` });
  await waitFor(() => h.api.requests('jay').length >= 3, 5000);
  assert.equal((await partsOf(h.rt).team.requests.get(stale.request_id))?.status, 'expired');
  assert.match(JSON.stringify(h.api.requests('jay')[2]!.body.messages.at(-1)), /already expired/);
  assert.notEqual((await partsOf(h.rt).team.roster.get('jay'))?.status, 'shutdown');
});

test('maxRounds ends a phase and tells the lead: not a wake of its own, but with the quiet team\'s one wake', async (t) => {
  const h = await harness(t, { maxRounds: 3 });
  h.api.setDefault(reply(toolUse('task_list', {})));
  await h.rt.spawnTeammate({ name: 'kim', role: 'dev', prompt: 'Loop forever.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('kim'))?.status === 'idle', 5000);
  assert.equal(h.api.requests('kim').length, 3);
  const notice = (await partsOf(h.rt).team.mailbox.history('lead')).at(-1);
  assert.match(notice?.content ?? '', /kim stopped after 3 model calls/);
  await waitFor(() => h.api.requests('lead').length >= 1, 5000, 'lead woken once the team is quiet');
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.messages.at(-1)), /The team is quiet.*kim stopped after 3 model calls/);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(h.api.requests('lead').length, 3, 'one wake (its own turn runs to its maxRounds of 3 here), not one per notice');
});
