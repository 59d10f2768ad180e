// The merge queue end to end: real git, the real SDK against the fake Messages API, the
// lead's queue_merge and the teammates' fixes scripted (docs/file-formats.md, "Merge queue").
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import type { MergeEntry } from '../../src/shared/schemas/merge-queue';
import { harness, sentText, type Harness } from './harness';
import { git, initRepo, status } from './git-helpers';
import { partsOf } from '../helpers/session-parts';

const COMMIT = 'git -c user.name=t -c user.email=t@t commit -qam';

async function entryOf(h: Harness, who: string, state?: MergeEntry['state']): Promise<MergeEntry | undefined> {
  const e = (await h.rt.mergeQueue.latestByTeammate()).get(who);
  return !state || e?.state === state ? e : undefined;
}

async function waitEntry(h: Harness, who: string, state: MergeEntry['state'], what: string): Promise<MergeEntry> {
  return (await waitFor(() => entryOf(h, who, state), 30_000, what))!;
}

test('two worktree teammates finish; the lead queues both: the first passes its test and lands, the second conflicts and goes back with the file; fixed, its retry lands', async (t) => {
  const h = await harness(t, { mergeTestCommand: 'grep -q ann shared.txt' });
  await initRepo(h.root, 'shared.txt');
  const tasks = [await h.rt.createTask({ subject: 'ann part' }), await h.rt.createTask({ subject: 'ben part' })];
  for (const [i, name] of ['ann', 'ben'].entries()) {
    h.api.script(name,
      reply(toolUse('claim_task', { task_id: tasks[i]!.id })),
      reply(toolUse('write_file', { path: 'shared.txt', content: `from ${name}\n` })),
      reply(toolUse('bash', { command: `${COMMIT} "${name} edit"` }), toolUse('task_update', { task_id: tasks[i]!.id, status: 'completed' })),
      reply(toolUse('idle', {})),
    );
  }
  await Promise.all(['ann', 'ben'].map((name) => h.rt.spawnTeammate({ name, role: 'dev', prompt: 'Take your task.', isolation: 'worktree' })));
  await waitFor(async () => (await partsOf(h.rt).team.tasks.list()).every((x) => x.status === 'completed'), 15_000, 'both tasks done');
  await waitFor(async () => (await partsOf(h.rt).team.roster.list()).every((m) => m.status === 'idle'), 10_000, 'both idle');

  // ben's fix, once the queue sends its work back: bring main in, resolve, commit, complete.
  h.api.script('ben',
    reply(toolUse('bash', { command: 'git merge main >/dev/null 2>&1; echo merged-main' })),
    reply(toolUse('write_file', { path: 'shared.txt', content: 'from ann\nfrom ben\n' })),
    reply(toolUse('bash', { command: `git add shared.txt && ${COMMIT} "resolve with main"` }), toolUse('task_update', { task_id: tasks[1]!.id, status: 'completed' })),
    reply(toolUse('idle', {})),
  );
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'ben' })), reply('Both queued.'));
  const mainBefore = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  await h.rt.askLead('Integrate their work.');
  // Whichever request carried the queue's results (the teammates' mail may wake the lead first).
  assert.match(h.api.requests('lead').map((r) => JSON.stringify(r.body.messages.at(-1))).join('\n'), /Queued wt\/ann of ann \(test: `grep -q ann shared.txt` \(the configured test command\)\), position 1[\s\S]*Queued wt\/ben of ben[^"]*position 2/);

  const ann = await waitEntry(h, 'ann', 'merged', 'ann merged');
  const ben = await waitEntry(h, 'ben', 'failed', 'ben failed');
  assert.deepEqual(ann.files, ['shared.txt']);
  // Landed: main moved by one merge commit whose first parent is the old tip, and the files came along.
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), ann.commit);
  assert.equal((await git(h.root, 'rev-parse', 'main^1')).stdout.trim(), mainBefore);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'from ann\n');
  assert.deepEqual(await status(h.root), [], 'the user\'s tree is clean: no half-merge, no conflict markers');
  // ben's conflict came back to ben, with the file, its task back in progress.
  assert.match(ben.reason ?? '', /conflicts with main in shared\.txt/);
  assert.deepEqual(ben.files, ['shared.txt']);
  await waitFor(async () => h.api.requests('ben').some((r) => /\[merge queue\] Your branch wt\/ben was not merged into main: it conflicts with main in shared\.txt/.test(JSON.stringify(r.body.messages))), 10_000, 'ben told');
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(tasks[1]!.id))?.status === 'completed', 15_000, 'ben fixed it and completed again');
  // The lead saw both outcomes.
  const leadMail = JSON.stringify(await partsOf(h.rt).team.mailbox.history('lead'));
  assert.match(leadMail, /ann's wt\/ann was merged into main/);
  assert.match(leadMail, /ben's wt\/ben was not merged into main: it conflicts with main in shared\.txt/);

  await h.rt.mergeQueue.retry('ben', 'lead');
  const again = await waitEntry(h, 'ben', 'merged', 'ben merged on retry');
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), again.commit);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'from ann\nfrom ben\n');
  assert.deepEqual(await status(h.root), []);
});

/** A worktree `name` whose branch changes `file` to `content` (committed), made without a model. */
async function branchWith(h: Harness, name: string, file: string, content: string): Promise<void> {
  const wt = await h.rt.worktrees.create(name);
  await writeFile(join(wt.path, file), content);
  await git(wt.path, 'add', file);
  await git(wt.path, 'commit', '-qm', `${name} change`);
}

test('a failing test lands nothing: failed with the output\'s tail, no scratch checkout left, main untouched', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  const before = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'echo first-line; echo boom-at-the-end; exit 3' });
  const e = await waitEntry(h, 'ann', 'failed', 'ann failed');
  assert.match(e.reason ?? '', /failed the test command `echo first-line; echo boom-at-the-end; exit 3` on the merge \(exit 3\)/);
  assert.match(e.output_tail ?? '', /boom-at-the-end$/);
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), before);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'base\n');
  assert.deepEqual(await status(h.root), []);
  await h.rt.mergeQueue.dispose();
  const worktrees = (await git(h.root, 'worktree', 'list', '--porcelain')).stdout.match(/^worktree /gm) ?? [];
  assert.equal(worktrees.length, 2, 'main and ann only: the scratch checkout is gone once the worker stops');
});

test('a dirty user tree: the tested merge waits saying why, and lands by itself once the tree is clean', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt', { 'other.txt': 'other\n' });
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  await writeFile(join(h.root, 'other.txt'), 'the user is editing this\n');
  const before = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'true' });
  const waiting = (await waitFor(async () => {
    const e = await entryOf(h, 'ann', 'testing');
    return e?.waiting ? e : undefined;
  }, 20_000, 'ann waiting'))!;
  assert.match(waiting.waiting ?? '', /uncommitted changes \(other\.txt\).*lands by itself/);
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), before, 'nothing landed meanwhile');
  assert.equal(await readFile(join(h.root, 'other.txt'), 'utf8'), 'the user is editing this\n', 'the user\'s edit is untouched');
  await git(h.root, 'commit', '-qam', 'user commits');
  const merged = await waitEntry(h, 'ann', 'merged', 'ann merged once clean');
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), merged.commit);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'from ann\n');
  assert.deepEqual(await status(h.root), []);
});

test('bad input is refused with its reason and changes nothing', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  const q = h.rt.mergeQueue;
  await assert.rejects(q.add('zed', { by: 'user' }), /unknown teammate "zed"/);
  await h.rt.worktrees.create('idle-one');
  await assert.rejects(q.add('idle-one', { by: 'user' }), /wt\/idle-one has nothing to merge into main/);
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  await writeFile(join(h.root, '.worktrees', 'ann', 'wip.txt'), 'half done\n');
  await assert.rejects(q.add('ann', { by: 'user', testCommand: 'no-such-tool-xyz --all' }), /program "no-such-tool-xyz" was not found/);
  await git(h.root, 'checkout', '-q', '--detach');
  await assert.rejects(q.add('ann', { by: 'user' }), /detached HEAD/);
  await git(h.root, 'checkout', '-q', 'main');
  const rebaseDir = (await git(h.root, 'rev-parse', '--git-path', 'rebase-merge')).stdout.trim();
  await import('node:fs/promises').then((fs) => fs.mkdir(join(h.root, rebaseDir), { recursive: true }));
  await assert.rejects(q.add('ann', { by: 'user' }), /middle of a rebase/);
  assert.deepEqual(await q.list(), [], 'no entry was written');
  // Uncommitted work in ann's checkout was not committed by any refused request.
  assert.equal((await git(h.root, 'rev-list', '--count', 'main..wt/ann')).stdout.trim(), '1');
  assert.deepEqual(await status(join(h.root, '.worktrees', 'ann')), ['?? wip.txt']);
});

test('a host killed mid-merge left the repository as it was: the entry is retried and lands', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  const before = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  // What a host killed during the test leaves: the entry `testing` under its (dead) pid.
  await h.rt.mergeQueue.store.update((entries) => {
    entries.push({
      id: 'mq_killed_1', teammate: 'ann', branch: 'wt/ann', test_command: 'true', task: null, state: 'testing', by: 'lead',
      queued_at: 1, updated_at: 1, worker: { host: 'gone-host', pid: 2 ** 22 + 12345, heartbeat_at: Date.now() / 1000 },
      into: 'main', base: before,
    });
  });
  const e = await waitEntry(h, 'ann', 'merged', 'retried and merged');
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), e.commit);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'from ann\n');
});

test('merge.auto = onTaskComplete in .team/settings.json: a worktree teammate completing its task queues its branch, tested with the file\'s test command', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'f.txt');
  await mkdir(join(h.root, '.team'), { recursive: true });
  await writeFile(join(h.root, '.team', 'settings.json'), JSON.stringify({ merge: { auto: 'onTaskComplete', testCommand: 'grep -q cal f.txt' } }));
  const task = await h.rt.createTask({ subject: 'cal part' });
  h.api.script('cal',
    reply(toolUse('claim_task', { task_id: task.id })),
    reply(toolUse('write_file', { path: 'f.txt', content: 'by cal\n' }), toolUse('task_update', { task_id: task.id, status: 'completed' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: 'Take it.', isolation: 'worktree' });
  const e = await waitEntry(h, 'cal', 'merged', 'cal merged');
  assert.equal(e.by, 'auto');
  assert.equal(e.task, task.id);
  assert.equal(e.test_command, 'grep -q cal f.txt');
  assert.equal(await readFile(join(h.root, 'f.txt'), 'utf8'), 'by cal\n');
  assert.match(sentText(h.api, 'cal', 2), /wt\/cal was queued for merge/);
});

test('a test command the lead names is a command like any other: a denied one queues nothing and never runs', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask' }, 'deny');
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann', test_command: 'touch pwned-by-test' })), 'ok');
  await h.rt.askLead('Queue ann with my test.');
  assert.deepEqual(h.bashAsks, ['touch pwned-by-test'], 'the user was asked');
  assert.match(sentText(h.api, 'lead'), /Not queued: the user denied the test command/);
  assert.deepEqual(await h.rt.mergeQueue.list(), []);
  await assert.rejects(readFile(join(h.root, 'pwned-by-test')), /ENOENT/);
  assert.equal((await git(h.root, 'rev-list', '--count', 'main..wt/ann')).stdout.trim(), '1', 'nothing merged');
});

test('a host killed after the branch moved to the tested merge: the entry is recovered as merged, with its files', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  const before = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  // What a host killed right after `git merge --ff-only` leaves: main at the merge, the entry `testing` under its dead pid.
  await git(h.root, 'merge', '--no-ff', '-q', '-m', 'Merge wt/ann', 'wt/ann');
  const commit = (await git(h.root, 'rev-parse', 'main')).stdout.trim();
  await h.rt.mergeQueue.store.update((entries) => {
    entries.push({
      id: 'mq_killed_2', teammate: 'ann', branch: 'wt/ann', test_command: 'true', task: null, state: 'testing', by: 'lead',
      queued_at: 1, updated_at: 1, worker: { host: 'gone-host', pid: 2 ** 22 + 12346, heartbeat_at: Date.now() / 1000 },
      into: 'main', base: before, commit,
    });
  });
  const e = await waitEntry(h, 'ann', 'merged', 'recovered as merged');
  assert.equal(e.commit, commit);
  assert.deepEqual(e.files, ['shared.txt']);
  assert.equal((await git(h.root, 'rev-parse', 'main')).stdout.trim(), commit, 'nothing merged twice');
});
