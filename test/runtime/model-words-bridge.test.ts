// What the model reads, round three (a model played every agent of a real team run on the ms
// package through the bridge): a plan-waiting teammate is left to wait, a shut-down notice
// says what went back, the merge queue speaks as itself, and an answer says a thing once.
// Through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { initRepo } from './git-helpers';
import { partsOf } from '../helpers/session-parts';

const lastMsg = (h: Harness, agent: string, i = -1) => JSON.stringify(h.api.requests(agent).at(i)?.body.messages.at(-1) ?? '');
const status = async (h: Harness, name: string) => (await partsOf(h.rt).team.roster.get(name))?.status;
const idle = (h: Harness, name: string) => waitFor(async () => (await status(h, name)) === 'idle', 8000, `${name} idle`);
const leadMail = async (h: Harness) => partsOf(h.rt).team.mailbox.history('lead');

test('a plan-mode teammate that ends its turn to wait sends the lead no result, is not handed its task again, and wakes to the answer said once', async (t) => {
  const h = await harness(t);
  const task = await h.rt.createTask({ subject: 'months in index.js' });
  h.api.script('ada',
    reply(toolUse('claim_task', { task_id: task.id })),
    reply(toolUse('plan_approval', { plan: '1. add mo to the regex' })),
    'Plan submitted; waiting for the answer.');
  await h.rt.spawnTeammate({ name: 'ada', role: 'dev', prompt: 'Plan the months change.', plan_mode_required: true });
  // Its three calls made and its turn over (idle alone may be seen before its first call under load).
  await waitFor(async () => h.api.requests('ada').length === 3 && (await status(h, 'ada')) === 'idle', 8000, 'ada waiting');
  const [plan] = await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' });
  assert.ok(plan);
  // Long enough for a resume to have happened (a board or mail change wakes it within milliseconds).
  await sleep(1500);
  assert.equal(h.api.requests('ada').length, 3, 'not woken again while its plan waits');
  assert.ok(!(await leadMail(h)).some((m) => m.type === 'result' && m.from === 'ada'), 'waiting is not a result');

  h.api.script('ada', reply(toolUse('idle', {})));
  await h.rt.decidePlan(plan.request_id, true, 'Leave years out.');
  await waitFor(() => h.api.requests('ada').length >= 4, 8000, 'ada woken by the answer');
  const woke = lastMsg(h, 'ada', 3);
  assert.match(woke, /<team-mail from=\\"user\\" type=\\"plan_approval_response\\" request_id=\\"[^"\\]+\\" approve=\\"true\\">\\nLeave years out\.\\n<\/team-mail>/);
  assert.equal(woke.split('Leave years out.').length - 1, 1, 'the feedback is said once');
});

test('a teammate shut down after idling: the lead reads which tasks went back, or that it held none, and how to have it back', async (t) => {
  const h = await harness(t, { idleTimeoutSeconds: 1 });
  // kim idles out before the task exists (an idle teammate would pick a pending task up).
  h.api.script('kim', 'Nothing to do yet.');
  await h.rt.spawnTeammate({ name: 'kim', role: 'dev', prompt: 'Wait for work.' });
  await waitFor(async () => (await status(h, 'kim')) === 'shutdown', 15_000, 'kim idled out');
  const task = await h.rt.createTask({ subject: 'half done' });
  h.api.script('lou', reply(toolUse('claim_task', { task_id: task.id })), 'Stopping here.', 'Still stopping.');
  await h.rt.spawnTeammate({ name: 'lou', role: 'dev', prompt: 'Start the task.' });
  await waitFor(async () => (await status(h, 'lou')) === 'shutdown', 15_000, 'lou idled out');
  const words = (await leadMail(h)).map((m) => m.content).join('\n');
  assert.match(words, /kim shut down after 1 s idle\. It held no task in progress\. To give it more work, spawn_teammate with name "kim" restarts it with its earlier conversation\./);
  assert.match(words, new RegExp(`lou shut down after 1 s idle\\. Its in-progress task #${task.id} went back to the board, unowned\\.`));
  assert.equal((await partsOf(h.rt).team.tasks.get(task.id))?.status, 'pending');
});

test('the merge queue speaks as itself: the lead reads from="merge-queue", and a landed branch does not wake its teammate but reaches it with its next mail', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'true' });
  await initRepo(h.root, 'shared.txt');
  h.api.script('ann',
    reply(toolUse('write_file', { path: 'shared.txt', content: 'from ann\n' })),
    reply(toolUse('bash', { command: 'git -c user.name=t -c user.email=t@t commit -qam "ann edit"' })),
    reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit shared.txt and commit.', isolation: 'worktree' });
  await idle(h, 'ann');
  const annCalls = h.api.requests('ann').length;
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' })), 'Queued; waiting.', 'Landed.');
  await h.rt.askLead('Land ann\'s branch.');
  await waitFor(() => h.api.requests('lead').length >= 3, 30_000, 'lead woken by the merge');
  assert.match(lastMsg(h, 'lead', 2), /<team-mail from=\\"merge-queue\\" type=\\"message\\">\\n\[merge queue\] ann's wt\/ann was merged into main/);
  await sleep(1000);
  assert.equal(h.api.requests('ann').length, annCalls, 'a landed branch needs nothing from ann: no wake');

  h.api.script('ann', reply(toolUse('idle', {})));
  await partsOf(h.rt).team.mailbox.send({ from: 'lead', to: 'ann', type: 'message', content: 'Thanks, all done.' });
  await waitFor(() => h.api.requests('ann').length > annCalls, 8000, 'ann woken by mail');
  const woke = JSON.stringify(h.api.requests('ann').at(-1)?.body.messages.at(-1));
  assert.match(woke, /<team-mail from=\\"merge-queue\\" type=\\"message\\">\\n\[merge queue\] Your branch wt\/ann was merged into main/);
  assert.match(woke, /Thanks, all done\./);
});

test('a teammate spawned after a task was reserved for it (same reply, no task id) starts on that task, its details in its first prompt', async (t) => {
  const h = await harness(t);
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead',
    reply(
      toolUse('task_create', { tasks: [
        { subject: 'months in index.js', owner: 'coder', description: 'Acceptance: ms(\'1mo\') parses.' },
        { subject: 'tests', owner: 'tester', blockedBy: [1] },
      ] }),
      toolUse('spawn_teammate', { name: 'coder', role: 'dev', prompt: 'Do your task.' }),
      toolUse('spawn_teammate', { name: 'tester', role: 'qa', prompt: 'Wait for the code.' }),
    ),
    'ok');
  await h.rt.askLead('Staff it.');
  const results = JSON.stringify(h.api.requests('lead')[1]?.body.messages.at(-1));
  assert.match(results, /Spawned coder \(dev\); it is working on task #1 \(claimed for it, reserved for it on the board\) and your prompt/);
  assert.match(results, /Spawned tester \(qa\); it is working on your prompt/, 'a blocked reserved task is not started');
  const first = JSON.stringify(h.api.requests('coder')[0]?.body.messages);
  assert.match(first, /You start on task #1, claimed for you: months in index\.js\\nDetails: Acceptance: ms\('1mo'\) parses\./);
  assert.equal((await partsOf(h.rt).team.tasks.get(1))?.status, 'in_progress');
  assert.equal((await partsOf(h.rt).team.tasks.get(2))?.status, 'pending');
});

test('a tool call without a name (a broken proxy) is an error result for the model, not a crashed turn', async (t) => {
  const h = await harness(t);
  h.api.script('lead', reply(toolUse(undefined as unknown as string, {}), toolUse('task_list', {})), 'Done.');
  await h.rt.askLead('Go.');
  const results = JSON.stringify(h.api.requests('lead')[1]?.body.messages.at(-1));
  assert.match(results, /You have no tool named/);
  assert.match(results, /The board is empty/);
  assert.ok(!h.events.some((e) => e.type === 'notice' && e.level === 'error'), 'no error notice: the turn went on');
});

test("a teammate is told its last words reach the lead by themselves, and they do, without a send_message waking the lead", async (t) => {
  const h = await harness(t);
  h.api.script('ada', 'Done: months parse and format; 10 tests pass.');
  await h.rt.spawnTeammate({ name: 'ada', role: 'dev', prompt: 'Add months.' });
  await waitFor(async () => (await leadMail(h)).some((m) => m.type === 'result' && m.from === 'ada'), 8000, 'ada result');
  const system = JSON.stringify(h.api.requests('ada')[0]?.body.system ?? '');
  assert.match(system, /Your last words reach the lead by themselves .*send_message the lead only what it must act on now/);
  const result = (await leadMail(h)).find((m) => m.type === 'result' && m.from === 'ada');
  assert.equal(result?.content, 'Done: months parse and format; 10 tests pass.');
  assert.equal((result as { notice?: boolean }).notice, true, 'a result does not wake the lead by itself');
});
