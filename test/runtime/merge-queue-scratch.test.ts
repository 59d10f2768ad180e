// The merge queue's scratch checkout, shared by a run of entries (docs/file-formats.md, "Merge
// queue"): each test sees the merge commit as git has it — nothing the test before left
// behind, tracked or not, ignored or not — and the checkout is gone once the worker stops.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { git, initRepo, status } from './git-helpers';

test('entries worked one after another: the second test sees a pristine checkout of its own merge, not what the first test left', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt', { 'other.txt': 'other\n', '.gitignore': '*.log\n' });
  for (const name of ['ann', 'ben']) {
    const wt = await h.rt.worktrees.create(name);
    await writeFile(join(wt.path, `${name}.txt`), `${name}\n`);
    await git(wt.path, 'add', `${name}.txt`);
    await git(wt.path, 'commit', '-qm', `${name} file`);
  }
  const q = h.rt.mergeQueue;
  // ann's test takes a second (ben is queued meanwhile, so one run works both) and litters:
  // an untracked file, an ignored one, a tracked file changed, a tracked file deleted, and it
  // tries a commit (refused in the sandbox, where the git folder is read-only to a test; made
  // on the scratch's detached HEAD without one).
  await q.add('ann', {
    by: 'user',
    testCommand: 'sleep 1; echo junk > junk.txt; echo log > build.log; echo changed >> other.txt; rm shared.txt; '
      + 'git -c user.name=t -c user.email=t@t commit -qam litter; true',
  });
  await q.add('ben', {
    by: 'user',
    testCommand: 'test ! -e junk.txt && test ! -e build.log && test "$(cat other.txt)" = other && test -e shared.txt && test -e ann.txt && test -e ben.txt '
      + '&& test "$(git rev-parse HEAD^2)" = "$(git rev-parse wt/ben)" && test -z "$(git status --porcelain)"',
  });
  const done = (await waitFor(async () => {
    const m = await q.latestByTeammate();
    return ['ann', 'ben'].every((n) => m.get(n)?.state === 'merged' || m.get(n)?.state === 'failed') ? m : undefined;
  }, 60_000, 'both settled'))!;
  assert.equal(done.get('ann')?.state, 'merged', done.get('ann')?.reason ?? '');
  assert.equal(done.get('ben')?.state, 'merged', `${done.get('ben')?.reason}\n${done.get('ben')?.output_tail}`);
  assert.equal((await git(h.root, 'show', 'main:ben.txt')).stdout, 'ben\n');
  assert.deepEqual(await status(h.root), []);
  // Whether or not the litter commit was made: no branch moved.
  assert.equal((await git(h.root, 'rev-parse', 'main^2')).stdout.trim(), (await git(h.root, 'rev-parse', 'wt/ben')).stdout.trim());
  await q.dispose();
  const worktrees = (await git(h.root, 'worktree', 'list', '--porcelain')).stdout.match(/^worktree /gm) ?? [];
  assert.equal(worktrees.length, 3, 'main, ann and ben: the scratch checkout is gone');
});
