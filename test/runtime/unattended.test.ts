// Unattended on real work (README "What works"; docs/headless.md): a lead that waits by
// ending its turn is woken when every shutdown it asked for has been answered, and when the
// team goes quiet with work left — told which task, and that the teammate that had it can be
// spawned again under the same name or the task reassigned —, but never twice for the same
// state. Each scenario runs through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse, type TurnSpec } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { initRepo } from './git-helpers';
import { partsOf } from '../helpers/session-parts';

const lastSent = (h: Harness, agent: string, i = -1) => JSON.stringify(h.api.requests(agent).at(i)?.body.messages.at(-1) ?? '');

/** A teammate's model: approves any shutdown request, else goes idle. */
const approveShutdowns: TurnSpec = (r) => {
  const m = /type=\\"shutdown_request\\" request_id=\\"(req_[a-z0-9_]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
  return m ? reply(toolUse('shutdown_response', { request_id: m[1], approve: true, reason: 'done' })) : reply(toolUse('idle', {}));
};

test('a lead that asked two teammates to shut down and ended its turn is woken once both have answered and stopped', async (t) => {
  const h = await harness(t);
  h.api.setDefault(approveShutdowns);
  for (const name of ['amy', 'bo']) await h.rt.spawnTeammate({ name, role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.list()).every((m) => m.status === 'idle'), 8000, 'both idle');
  h.api.script('lead',
    reply(toolUse('shutdown_request', { teammate: 'amy' }), toolUse('shutdown_request', { teammate: 'bo' })),
    'Asked both to shut down; waiting.',
    'Both have shut down: all done.');
  await h.rt.askLead('Wrap up.');
  await waitFor(() => h.api.requests('lead').length >= 3, 8000, 'lead woken by the answers');
  const woke = lastSent(h, 'lead');
  assert.match(woke, /Every shutdown you requested has been answered/);
  assert.match(woke, /from=\\"amy\\" type=\\"shutdown_response\\"/);
  assert.match(woke, /from=\\"bo\\" type=\\"shutdown_response\\"/);
  assert.deepEqual((await partsOf(h.rt).team.roster.list()).map((m) => m.status), ['shutdown', 'shutdown']);
  await sleep(800);
  assert.equal(h.api.requests('lead').length, 3, 'woken once');
});

test('a shutdown answered while another teammate still works does not wake the lead: it is woken once, with the answer and the worker\'s result', async (t) => {
  const h = await harness(t);
  h.api.setDefault(approveShutdowns);
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('amy'))?.status === 'idle', 8000, 'amy idle');
  // bo works on what the lead just sent it while amy answers.
  h.api.script('bo', reply(toolUse('bash', { command: 'sleep 3' })), reply(toolUse('send_message', { to: 'lead', content: 'bo: the types are fixed.' }), toolUse('idle', {})));
  h.api.script('lead',
    reply(toolUse('shutdown_request', { teammate: 'amy' }), toolUse('spawn_teammate', { name: 'bo', role: 'dev', prompt: 'Fix the types.' })),
    'Asked amy to shut down, bo is on the types; waiting.',
    'All done.');
  await h.rt.askLead('Wrap up.');
  await waitFor(() => h.api.requests('lead').length >= 3, 15_000, 'lead woken');
  const woke = lastSent(h, 'lead');
  assert.match(woke, /from=\\"amy\\" type=\\"shutdown_response\\"/, 'the answer');
  assert.match(woke, /bo: the types are fixed\./, 'and bo\'s result, in the same turn');
  await sleep(800);
  assert.equal(h.api.requests('lead').length, 3, 'one wake, not one for the answer and one for the result');
});

test('a teammate that idled out with its task unfinished: the quiet lead is told which task and that it can respawn or reassign, not "nothing is left to claim"', async (t) => {
  const h = await harness(t, { idleTimeoutSeconds: 1 });
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'port the parser' });
  h.api.script('amy', reply(toolUse('claim_task', { task_id: task.id })), 'Halfway through the parser.', 'Still halfway.');
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead', 'amy will carry on.', 'amy will carry on.', 'I will respawn amy later.', 'Still later.');
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Take the parser task.' });
  const wakes = () => h.api.requests('lead').map((r) => JSON.stringify(r.body.messages.at(-1)));
  // Idle with its task in progress, amy is first named as holding it without working on it.
  await waitFor(() => wakes().some((w) => /task #1 \\"port the parser\\" is in progress with amy, who is not working on it/.test(w)), 8000, 'lead told amy holds it');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('amy'))?.status === 'shutdown', 10000, 'amy idled out');
  const told = /task #1 \\"port the parser\\" went back to the board unfinished when amy shut down/;
  await waitFor(() => wakes().some((w) => told.test(w)), 8000, 'lead woken again: the work left changed');
  const woke = wakes().find((w) => told.test(w))!;
  assert.doesNotMatch(woke, /nothing is left to claim/);
  assert.match(woke, /spawn_teammate \\"amy\\" again \(same name: its conversation is resumed\) or reassign it \(task_update owner\)/);
  assert.match(woke, /amy shut down after 1 s idle/);
  const count = h.api.requests('lead').length;
  await sleep(800);
  assert.equal(h.api.requests('lead').length, count, 'not woken again for the same work left');
});

test('a lead that ends its turn with a task nobody can take is woken once with it; ending again with the same state wakes nobody', async (t) => {
  const h = await harness(t);
  h.api.script('lead', reply(toolUse('task_create', { subject: 'write the changelog' })), 'Created it.', 'Leaving it for the user.');
  await h.rt.askLead('Plan the release.');
  await waitFor(() => h.api.requests('lead').length >= 3, 8000, 'lead woken for the task left');
  assert.match(lastSent(h, 'lead'), /The team is quiet: no teammate is working, and this is left undone:\\n- task #1 \\"write the changelog\\" is pending and no teammate is free to take it/);
  await sleep(800);
  assert.equal(h.api.requests('lead').length, 3, 'woken once');
  assert.deepEqual(await h.rt.rest().then((r) => [r.atRest, r.left.length]), [true, 1]);
});

test('a lead that queued a merge and ended its turn waits for it: not at rest while the entry is tested, woken by the result; a failed entry is work left', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'sleep 1.5; echo "1 test failed"; exit 1' });
  await initRepo(h.root, 'shared.txt');
  h.api.script('ann',
    reply(toolUse('write_file', { path: 'shared.txt', content: 'from ann\n' })),
    reply(toolUse('bash', { command: 'git -c user.name=t -c user.email=t@t commit -qam "ann edit"' })),
    reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle' && h.api.requests('ann').length >= 3, 15_000, 'ann done');
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' })), 'Queued; waiting for the merge.', 'The merge failed; ann will fix it.', 'Noted.');
  await h.rt.askLead('Land ann\'s work.');
  await waitFor(async () => (await h.rt.mergeQueue.list()).some((e) => e.state === 'testing'), 10_000, 'the entry is tested');
  assert.equal((await h.rt.rest()).atRest, false, 'not at rest while the merge is tested');
  await waitFor(() => h.api.requests('lead').length >= 3, 20_000, 'lead woken by the merge result');
  assert.match(JSON.stringify(h.api.requests('lead')[2]!.body.messages.at(-1)), /merge-queue/);
  await waitFor(async () => (await h.rt.rest()).atRest, 10_000, 'at rest once the lead has heard');
  assert.match((await h.rt.rest()).left.map((i) => i.text).join('\n'), /merge queue: ann's branch wt\/ann failed/);
});
