// A teammate waiting for its plan's answer (docs/file-formats.md, "Plan mode") is woken by the
// answer, a shutdown request or the lead's or user's word to it — not by a teammate's chatter,
// a broadcast or a task on the board; what it was not woken for comes with the answer. Real
// SDK, fake API: each wake is a model call, so the calls are counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { partsOf, userBroadcasts, userSends } from '../helpers/session-parts';

const idle = (h: Harness, name: string) =>
  waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);
const settle = () => new Promise((r) => setTimeout(r, 700));
const lastText = (h: Harness, agent: string) => JSON.stringify(h.api.requests(agent).at(-1)?.body.messages.at(-1) ?? '');

/** pia, in plan mode, submits a plan and ends its turn: 2 model calls, then it waits. */
async function planWaiter(h: Harness): Promise<string> {
  h.api.script('pia', reply(toolUse('plan_approval', { plan: '1. fix utils.js' })), 'Waiting for the answer.');
  await h.rt.spawnTeammate({ name: 'pia', role: 'dev', prompt: 'Plan the fix first.', plan_mode_required: true });
  await waitFor(() => h.api.requests('pia').length === 2, 8000, 'pia planned');
  await idle(h, 'pia');
  const [plan] = await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' });
  assert.ok(plan, 'a pending plan');
  return plan.request_id;
}

test("a plan waiter sleeps through a teammate's message and a broadcast; the approval wakes it with all of them", async (t) => {
  const h = await harness(t);
  const requestId = await planWaiter(h);
  // A teammate's message, a broadcast and a claimable task: none is what pia waits for.
  h.api.script('bob', reply(toolUse('send_message', { to: 'pia', content: 'FYI: I am renaming helpers in utils.js' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Tell pia what you are doing.' });
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.history('pia')).some((m) => m.from === 'bob'), 8000, 'bob wrote');
  await idle(h, 'bob');
  await userBroadcasts(h.rt, 'Standup at ten.');
  h.api.script('bob', reply(toolUse('idle', {})));
  await settle();
  assert.equal(h.api.requests('pia').length, 2, 'no model call for mail it does not wait for');
  assert.equal((await partsOf(h.rt).team.roster.get('pia'))?.status, 'idle');

  // The answer wakes it, once, with what came meanwhile (in order, nothing lost).
  h.api.script('pia', reply(toolUse('write_file', { path: 'utils.js', content: 'fixed' })), 'Done.');
  await h.rt.decidePlan(requestId, true);
  await waitFor(() => h.api.requests('pia').length >= 3, 8000, 'pia woken by the approval');
  const woke = JSON.stringify(h.api.requests('pia')[2]!.body.messages.at(-1));
  assert.match(woke, /from=\\"bob\\" type=\\"message\\"[^>]*>\\nFYI: I am renaming helpers in utils\.js/);
  assert.match(woke, /type=\\"broadcast\\"[^>]*>\\nStandup at ten\./);
  assert.match(woke, /type=\\"plan_approval_response\\"[^>]*approve=\\"true\\"/);
  assert.ok(woke.indexOf('FYI') < woke.indexOf('plan_approval_response'), 'in the order they came');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('pia'))?.status === 'idle' && h.api.requests('pia').length >= 4, 8000, 'pia done');
  assert.match(lastText(h, 'pia'), /Wrote utils\.js|Created utils\.js/);
});

test('a plan waiter takes no task from the board while it waits; the lead\'s word to it and a shutdown request do wake it', async (t) => {
  const h = await harness(t);
  await planWaiter(h);
  await h.rt.createTask({ subject: 'write the changelog' });
  await settle();
  assert.equal(h.api.requests('pia').length, 2, 'not woken for the task');
  const task = await partsOf(h.rt).team.tasks.get(1);
  assert.deepEqual([task?.status, task?.owner || null], ['pending', null], 'the task is left for others');

  // The user (or the lead) speaking to it is worth a wake: it may be told to change course.
  h.api.script('pia', 'Still waiting for my plan\'s answer.');
  await userSends(h.rt, 'pia', 'Is your plan small?');
  await waitFor(() => h.api.requests('pia').length === 3, 8000, 'woken by the user');
  assert.match(lastText(h, 'pia'), /from=\\"user\\" type=\\"message\\"[^>]*>\\nIs your plan small\?/);
  await idle(h, 'pia');

  h.api.setDefault((r) => {
    const m = /type=\\"shutdown_request\\" request_id=\\"([^"\\]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
    return m ? reply(toolUse('shutdown_response', { request_id: m[1], approve: true })) : 'ok';
  });
  await h.rt.requestShutdown('pia');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('pia'))?.status === 'shutdown', 8000, 'pia shut down');
});

test('a task reserved for a plan waiter does not keep the team from going quiet: the lead gets the others\' results', async (t) => {
  const h = await harness(t);
  await planWaiter(h);
  await partsOf(h.rt).team.tasks.createMany([{ subject: 'fix utils.js', owner: 'pia', blockedBy: [] }]);
  h.api.script('bo', 'Tests pass.');
  h.api.script('lead', 'Noted.');
  await h.rt.spawnTeammate({ name: 'bo', role: 'tester', prompt: 'Run the tests.' });
  await waitFor(() => h.api.requests('lead').length >= 1, 8000, 'lead woken once the team is quiet');
  assert.match(lastText(h, 'lead'), /The team is quiet.*from=\\"bo\\" type=\\"result\\">\\nTests pass\./);
  assert.equal(h.api.requests('pia').length, 2, 'pia still waits for its answer');
  assert.equal((await partsOf(h.rt).team.tasks.get(1))?.status, 'pending');
});
