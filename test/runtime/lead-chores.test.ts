// SPEC §19, from the bridge runs (a model played every agent of a team on slugify and
// pretty-bytes): the lead's own calls are for deciding, not for the product's chores. Branches
// it queued land without a wake each; a landed branch of a teammate that shut down loses its
// worktree by itself, told in one notice; a teammate given no task is not sent to the board.
// Through the real SDK against the fake API, real git, the real merge queue.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { partsOf } from '../helpers/session-parts';
import { reply, toolUse } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { Team } from '../../src/core/team/team';
import { TIDY_WAIT_MS, watchQuiet } from '../../src/core/runtime/quiet-team';
import { harness, type Harness } from './harness';
import { git, initRepo } from './git-helpers';

const commit = (file: string, text: string) => toolUse('bash', { command: `printf '${text}\\n' > ${file} && git add ${file} && git -c user.name=t -c user.email=t@t commit -qm ${file}` });
const status = async (h: Harness, name: string) => (await partsOf(h.rt).team.roster.get(name))?.status;
const lastMsg = (h: Harness, agent: string, i = -1) => JSON.stringify(h.api.requests(agent).at(i)?.body.messages.at(-1) ?? '');
const merged = async (h: Harness, n: number) => (await h.rt.mergeQueue.list()).filter((e) => e.state === 'merged').length === n;

/** Teammates' model: approves a shutdown request, else goes idle. */
const approveShutdowns = (r: { body: { messages: unknown[] } }) => {
  const m = /type=\\"shutdown_request\\" request_id=\\"([^"\\]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
  return reply(m ? toolUse('shutdown_response', { request_id: m[1], approve: true, reason: 'done' }) : toolUse('idle', {}));
};

/** Two worktree teammates, each with one commit of its own file, idle. */
async function twoBranches(h: Harness): Promise<void> {
  await initRepo(h.root, 'base.txt');
  for (const [name, file] of [['ann', 'a.txt'], ['ben', 'b.txt']] as const) {
    h.api.script(name, reply(commit(file, name)), `Committed ${file}.`);
    await h.rt.spawnTeammate({ name, role: 'dev', prompt: `Write ${file} and commit.`, isolation: 'worktree' });
  }
  await waitFor(async () => (await status(h, 'ann')) === 'idle' && (await status(h, 'ben')) === 'idle' && h.api.requests('ben').length === 2 && h.api.requests('ann').length === 2, 15_000, 'both idle');
}

test('the lead queues two branches in one reply: woken once, after both landed, with both landings', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'true' });
  h.api.setDefault(reply(toolUse('idle', {})));
  await twoBranches(h);
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'ben' })), 'Queued; waiting.', 'Both landed.', 'Nothing more.');
  await h.rt.askLead('Land both branches.');
  assert.match(lastMsg(h, 'lead', 1), /A failure wakes you only if you must act \(a branch at fault goes back to its teammate and is queued again by itself\); a landing reaches you with the team's results when the team goes quiet/);
  await waitFor(() => merged(h, 2), 30_000, 'both merged');
  await waitFor(() => h.api.requests('lead').length >= 3, 10_000, 'lead woken');
  await sleep(1500);
  assert.equal(h.api.requests('lead').length, 3, 'one wake for two landings');
  const woke = lastMsg(h, 'lead');
  assert.match(woke, /ann's wt\/ann was merged into main/);
  assert.match(woke, /ben's wt\/ben was merged into main/);
});

test('a landed branch whose teammate shut down loses its worktree by itself: the lead is told in one notice, woken once, and calls no worktree_remove', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'sleep 1' });
  h.api.setDefault(approveShutdowns);
  await twoBranches(h);
  h.api.script('lead',
    reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'ben' }),
      toolUse('shutdown_request', { teammate: 'ann' }), toolUse('shutdown_request', { teammate: 'ben' })),
    'Queued and asked; waiting.', 'All landed and cleaned up.', 'Nothing more.');
  await h.rt.askLead('Land both and wrap up.');
  await waitFor(() => merged(h, 2), 30_000, 'both merged');
  await waitFor(() => h.api.requests('lead').length >= 3, 15_000, 'lead woken');
  await sleep(1500);
  assert.equal(h.api.requests('lead').length, 3, `woken once: the shutdowns were answered while the queue still tested, so it waited for the landings; woken with ${h.api.requests('lead').slice(2).map((r) => JSON.stringify(r.body.messages.slice(-3))).join(' ### ')}`);
  const woke = lastMsg(h, 'lead');
  assert.match(woke, /Every shutdown you requested has been answered|The team is quiet/);
  assert.match(woke, /ben's wt\/ben was merged into main/);
  assert.match(woke, /\[worktrees\] Removed the worktree and branch of (ann, ben|ben, ann)|\[worktrees\] Removed the worktree and branch of ann[\s\S]*\[worktrees\] Removed the worktree and branch of ben/);
  for (const name of ['ann', 'ben']) {
    await assert.rejects(stat(join(h.root, '.worktrees', name)), `${name}'s checkout is gone`);
    await assert.rejects(git(h.root, 'rev-parse', '--verify', '--quiet', `refs/heads/wt/${name}`), `wt/${name} is gone`);
  }
  await stat(join(h.root, 'a.txt'));
  await stat(join(h.root, 'b.txt'));
  assert.ok(!JSON.stringify(h.api.requests('lead').map((r) => r.body.messages)).includes('"name":"worktree_remove"'));
});

test('after a landing, caches its tests left (node_modules/.cache) do not keep a worktree; a file of its own does, and the lead and the user are told', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'true' });
  h.api.setDefault(approveShutdowns);
  await initRepo(h.root, 'base.txt', { '.gitignore': 'node_modules/\n.env\n' });
  // ann's test run left ava's and xo's caches (find-cache-dir: <package>/node_modules/.cache); ben wrote a .env of its own.
  const leftovers = { ann: 'mkdir -p node_modules/.cache/ava node_modules/.cache/xo-linter && echo {} > node_modules/.cache/ava/failing-tests.json && echo {} > node_modules/.cache/xo-linter/cache.json', ben: 'echo TOKEN=1 > .env' };
  for (const [name, file] of [['ann', 'a.txt'], ['ben', 'b.txt']] as const) {
    h.api.script(name, reply(commit(file, name), toolUse('bash', { command: leftovers[name] })), `Committed ${file}.`);
    await h.rt.spawnTeammate({ name, role: 'dev', prompt: `Write ${file} and commit.`, isolation: 'worktree' });
  }
  await waitFor(async () => (await status(h, 'ann')) === 'idle' && (await status(h, 'ben')) === 'idle' && h.api.requests('ben').length === 2 && h.api.requests('ann').length === 2, 15_000, 'both idle');
  h.api.script('lead',
    reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'ben' }),
      toolUse('shutdown_request', { teammate: 'ann' }), toolUse('shutdown_request', { teammate: 'ben' })),
    'Queued and asked; waiting.', 'Done.', 'Nothing more.');
  await h.rt.askLead('Land both and wrap up.');
  await waitFor(() => merged(h, 2), 30_000, 'both merged');
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.history('lead')).some((m) => m.content.includes('Kept the worktree of ben')), 15_000, 'the lead told of the kept worktree');
  await assert.rejects(stat(join(h.root, '.worktrees', 'ann')), 'ann\'s checkout is gone: caches are not its work');
  assert.equal((await stat(join(h.root, '.worktrees', 'ben', '.env'))).isFile(), true, 'ben\'s own ignored file is kept with its checkout');
  const told = (await partsOf(h.rt).team.mailbox.history('lead')).find((m) => m.content.includes('Kept the worktree of ben'))!;
  assert.match(told.content, /\.env/, 'the file is named');
  assert.ok(h.events.some((e) => e.type === 'notice' && e.level === 'warning' && /Kept the worktree of ben/.test(e.message)), 'the user is told (a warning: headless runs print it)');
});

test('a teammate whose branch is in the merge queue does not idle out while it is tested (bridge runs C15, C16: it shut down mid-test and the lead was told to respawn it)', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'sleep 4', idleTimeoutSeconds: 2, idlePollSeconds: 1 });
  await initRepo(h.root, 'base.txt');
  h.api.script('ann', reply(commit('a.txt', 'ann')), 'Committed a.txt.');
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Write a.txt and commit.', isolation: 'worktree' });
  await waitFor(async () => (await status(h, 'ann')) === 'idle' && h.api.requests('ann').length === 2, 10_000, 'ann idle');
  await h.rt.mergeQueue.add('ann', { by: 'user' });
  h.rt.mergeQueue.start();
  await sleep(3_000);
  assert.equal(await status(h, 'ann'), 'idle', 'past its 2 s idle timeout, still there while its branch is tested');
  await waitFor(() => merged(h, 1), 20_000, 'landed');
  await waitFor(async () => (await status(h, 'ann')) === 'shutdown', 10_000, 'idles out once its branch has landed');
});

test('a worktree whose branch did not land stays, its teammate shut down or not', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'base.txt');
  h.api.script('cal', reply(commit('c.txt', 'cal')), 'Committed.');
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: 'Write c.txt and commit.', isolation: 'worktree' });
  await waitFor(async () => (await status(h, 'cal')) === 'idle' && h.api.requests('cal').length === 2, 10_000, 'cal idle');
  await h.rt.stopTeammate('cal');
  await sleep(1000);
  await stat(join(h.root, '.worktrees', 'cal'));
  assert.ok(!(await partsOf(h.rt).team.mailbox.history('lead')).some((m) => m.content.startsWith('[worktrees]')));
});

test('a teammate spawned with no task is not sent to the task board; one given a task is told to complete it', async (t) => {
  const h = await harness(t);
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'dee', role: 'dev', prompt: 'Rename foo to bar in x.js.' });
  await waitFor(() => h.api.requests('dee').length >= 1, 8000, 'dee asked');
  const first = JSON.stringify(h.api.requests('dee')[0]!.body.system) + JSON.stringify(h.api.requests('dee')[0]!.body.messages);
  assert.doesNotMatch(first, /task board|claim_task/, 'nothing about a board it has nothing on');
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'rename in y.js', owner: 'dee' });
  await waitFor(() => /You start on|reserved for you/.test(lastMsg(h, 'dee')), 8000, 'dee given the task');
  assert.match(lastMsg(h, 'dee'), new RegExp(`Task #${task.id} was reserved for you by name.*Mark it completed with task_update when done`));
});

test('a slow worktree removal does not hold the lead\'s wake; the team is not at rest until it is done', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  await team.spawnMember('ann', 'dev', {});
  await team.roster.patch('ann', { status: 'idle' });
  let finish = () => {};
  const removal = new Promise<void>((r) => (finish = r));
  let busy = true;
  void removal.then(() => (busy = false));
  const wakes: string[] = [];
  const watch = await watchQuiet({ team, queue: async () => [], leadBusy: () => false, wake: (note) => wakes.push(note), tidy: () => removal, tidyBusy: () => busy, settleMs: 50 });
  t.after(() => (watch.dispose(), team.dispose()));
  await team.mailbox.send({ from: 'ann', to: 'lead', type: 'result', content: 'Done.', notice: true });
  watch.recheck();
  await waitFor(() => wakes.length === 1, TIDY_WAIT_MS + 3000, 'the lead woken while the removal still runs');
  assert.equal((await watch.rest()).atRest, false, 'not at rest while a checkout is being deleted');
  finish();
  await waitFor(async () => (await watch.rest()).atRest, 3000, 'at rest once the removal is done');
});

/** A commit of `text` as the whole of shared.txt. */
const editShared = (text: string) => toolUse('bash', { command: `printf '${text}\\n' > shared.txt && git add shared.txt && git -c user.name=t -c user.email=t@t commit -qm ${text.replace(/ /g, '-')}` });
/** The fix of a branch that conflicts on shared.txt: main brought in, its own line kept. */
const mergeMainKeepingOurs = toolUse('bash', { command: 'git -c user.name=t -c user.email=t@t merge -q -X ours main -m "merge main"' });

/** ann and ben, each in its worktree, commit their own line of shared.txt (and complete their task, when given one), then idle. */
async function twoOnOneLine(h: Harness, tasks?: { ann: number; ben: number }): Promise<void> {
  for (const name of ['ann', 'ben'] as const) {
    const task = tasks?.[name];
    h.api.script(name, reply(editShared(`${name} line`), ...(task ? [toolUse('task_update', { task_id: task, status: 'completed' })] : []), toolUse('idle', {})));
    await h.rt.spawnTeammate({ name, role: 'dev', prompt: 'Change shared.txt.', isolation: 'worktree', ...(task ? { task } : {}) });
  }
  await waitFor(async () => (await status(h, 'ann')) === 'idle' && (await status(h, 'ben')) === 'idle' && h.api.requests('ben').length >= 1 && h.api.requests('ann').length >= 1, 15_000, 'both done');
  await waitFor(async () => (await git(h.root, 'rev-parse', 'wt/ben')).stdout !== (await git(h.root, 'rev-parse', 'main')).stdout, 15_000, 'ben committed');
}

/**
 * As the lead plays it in the bridge runs: both queued and both asked to shut down in one reply;
 * then until ben's fix has landed, ben shut down and the lead woken. Returns the lead's calls
 * before it was asked (a loaded machine may wake it with the teammates' results first).
 */
async function leadQueuesAndShutsDownBoth(h: Harness): Promise<number> {
  const before = h.api.requests('lead').length;
  h.api.script('lead',
    reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'ben' }),
      toolUse('shutdown_request', { teammate: 'ann' }), toolUse('shutdown_request', { teammate: 'ben' })),
    'Queued and asked; waiting.', 'All landed.', 'Nothing more.');
  await h.rt.askLead('Land both and wrap up.');
  await waitFor(() => merged(h, 2), 45_000, 'both landed, ben\'s after its fix').catch(async (e: Error) => {
    // What stood still, for the failure's message.
    const queue = (await h.rt.mergeQueue.list()).map((x) => `${x.teammate}:${x.state}:${x.by}`).join(' ');
    const ben = h.api.requests('ben').slice(-3).map((r) => JSON.stringify(r.body.messages.at(-1)).slice(0, 600)).join(' ### ');
    throw new Error(`${e.message}; queue: ${queue}; ben ${await status(h, 'ben')}, its last requests: ${ben}`);
  });
  await waitFor(async () => (await status(h, 'ben')) === 'shutdown', 15_000, 'ben shut down after its fix landed');
  await waitFor(() => h.api.requests('lead').length >= before + 3, 15_000, 'lead woken');
  await sleep(1500);
  return before;
}

/**
 * The lead's calls from the one that read the user's request on, and what the ones after the
 * first two read (for a failure's message). `before`: its calls before it was asked.
 */
function leadCallsSince(h: Harness, before: number): { count: number; extra: string } {
  const all = h.api.requests('lead');
  const asked = all.findIndex((r, i) => i >= before && /Land both and wrap up/.test(JSON.stringify(r.body.messages.at(-1))));
  const calls = all.slice(asked < 0 ? before : asked);
  return { count: calls.length, extra: calls.slice(2).map((r) => JSON.stringify(r.body.messages.slice(-2))).join(' ### ') };
}

/**
 * As in the bridge runs A9 and P11: two teammates change the same line in their worktrees; the
 * lead queues both and asks both to shut down in one reply. The second conflicts after its
 * teammate shut down. `tasks`: the teammates work on board tasks (the fix completes its task)
 * or only from their prompts, as a lead most often spawns them (the fix goes idle).
 */
async function conflictAfterShutdown(t: TestContext, tasks: boolean): Promise<void> {
  // ann's test takes a few seconds, so ben (behind it) has shut down before its conflict is
  // found; the other order is the next test's.
  const h = await harness(t, { mergeTestCommand: 'sleep 4' });
  await initRepo(h.root, 'shared.txt');
  const board = partsOf(h.rt).team.tasks;
  const [ta, tb] = tasks ? [await board.create({ subject: 'ann: shared.txt' }), await board.create({ subject: 'ben: shared.txt' })] : [undefined, undefined];
  h.api.setDefault((r) => {
    if (r.agent === 'lead') return reply('Noted.');
    const last = JSON.stringify(r.body.messages.at(-1));
    const m = /type=\\"shutdown_request\\" request_id=\\"([^"\\]+)\\"/.exec(last);
    if (m) return reply(toolUse('shutdown_response', { request_id: m[1], approve: true, reason: 'done' }));
    // Brought back by the queue: its first prompt is the queue's note. It brings main in, keeps its own line, and says it is done.
    if (/the merge queue brought you back/.test(last)) {
      return reply(mergeMainKeepingOurs, tb ? toolUse('task_update', { task_id: tb.id, status: 'completed' }) : toolUse('idle', {}));
    }
    return reply(toolUse('idle', {}));
  });
  await twoOnOneLine(h, ta && tb ? { ann: ta.id, ben: tb.id } : undefined);
  const before = await leadQueuesAndShutsDownBoth(h);

  const entries = (await h.rt.mergeQueue.list()).filter((e) => e.teammate === 'ben');
  assert.deepEqual(entries.map((e) => [e.state, e.by, e.revived ?? false]), [['failed', 'lead', true], ['merged', 'fix', false]]);
  const back = JSON.stringify(h.api.requests('ben').find((r) => /the merge queue brought you back/.test(JSON.stringify(r.body.messages)))?.body.messages ?? '');
  assert.match(back, /Your branch wt\/ben was not merged into main/, 'the note reached the teammate brought back');
  assert.match(back, tb ? new RegExp(`mark task #${tb.id} completed \\(task_update\\): the merge queue takes your branch again by itself`) : /go idle \(idle\): the merge queue takes your branch again by itself/);
  const lead = leadCallsSince(h, before);
  assert.equal(lead.count, 3, `the lead spent no call on the conflict: ${lead.extra}`);
  assert.match(lastMsg(h, 'lead'), /ben had shut down: the merge queue brought it back to fix it/);
  assert.equal((await git(h.root, 'show', 'main:shared.txt')).stdout, 'ben line\n');
}

test('a conflict on a branch whose teammate already shut down costs the lead nothing: brought back with the note, its fix (task completed) lands by itself, it is asked to shut down again', (t) => conflictAfterShutdown(t, true));

test('the same without board tasks (a lead most often spawns from prompts alone): the fix is queued again when the teammate goes idle with new commits', (t) => conflictAfterShutdown(t, false));

test('the queue\'s note arriving in the same round as a shutdown request keeps the teammate from shutting down until its fix has landed (bridge probe P10: the note was left unread)', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'true' });
  await initRepo(h.root, 'shared.txt');
  const benFailed = async () => (await h.rt.mergeQueue.list()).some((e) => e.teammate === 'ben' && e.state === 'failed');
  h.api.setDefault(async (r) => {
    if (r.agent === 'lead') return reply('Noted.');
    const last = JSON.stringify(r.body.messages.at(-1));
    const m = /type=\\"shutdown_request\\" request_id=\\"([^"\\]+)\\"/.exec(last);
    if (/Not yet: the merge queue sent your branch back/.test(last)) return reply(mergeMainKeepingOurs, toolUse('idle', {}));
    if (m) {
      // ben answers only once its branch has failed: the queue's note and the request are in the same round.
      if (r.agent === 'ben' && !(await benFailed())) await waitFor(benFailed, 20_000, 'ben\'s entry failed');
      return reply(toolUse('shutdown_response', { request_id: m[1], approve: true, reason: 'done' }));
    }
    return reply(toolUse('idle', {}));
  });
  await twoOnOneLine(h);
  const before = await leadQueuesAndShutsDownBoth(h);

  const ben = (await h.rt.mergeQueue.list()).filter((e) => e.teammate === 'ben');
  assert.deepEqual(ben.map((e) => [e.state, e.by, e.revived ?? false]), [['failed', 'lead', false], ['merged', 'fix', false]]);
  // The lead's own request was put to ben again and answered: none of its requests is left open or expired.
  const asked = await partsOf(h.rt).team.requests.list({ kind: 'shutdown', to: 'ben' });
  assert.deepEqual(asked.map((r) => [r.from, r.status]), [['lead', 'approved']]);
  const refused = h.api.requests('ben').find((r) => /Not yet: the merge queue sent your branch back/.test(JSON.stringify(r.body.messages.at(-1))));
  assert.ok(refused, 'the approval was refused while the branch waited for its fix');
  assert.match(JSON.stringify(refused.body.messages), /Your branch wt\/ben was not merged into main/, 'with the note in the same round');
  const lead = leadCallsSince(h, before);
  assert.equal(lead.count, 3, `the lead spent no call on it: ${lead.extra}`);
  assert.equal((await git(h.root, 'show', 'main:shared.txt')).stdout, 'ben line\n');
});
