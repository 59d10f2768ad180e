// The merge queue's run of entries (docs/file-formats.md, "Merge queue"): each entry is merged
// onto the branch as the entry before it left it, from its own branch as it is when claimed;
// the run's scratch checkout is gone when the run ends; a repository that signs its commits
// gets a signed merge commit.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { MergeQueue } from '../../src/core/merge/merge-queue';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { DEFAULT_SANDBOX } from '../../src/shared/sandbox-schemas';
import type { MergeEntry } from '../../src/shared/schemas/merge-queue';
import { tempDir, waitFor } from '../helpers/tmp';
import { git, initRepo, status } from './git-helpers';

async function setup(t: Parameters<typeof tempDir>[0], before?: (root: string) => Promise<void>) {
  const root = await tempDir(t);
  await initRepo(root, 'shared.txt');
  await before?.(root);
  const wm = new WorktreeManager(root);
  const team = await new Team(root).init();
  const q = new MergeQueue({ team, worktrees: wm, hostId: 'test', settings: () => ({ sandbox: { ...DEFAULT_SANDBOX, mode: 'off' } }) });
  t.after(async () => { await q.dispose(); team.dispose(); });
  const branch = async (name: string, file = `${name}.txt`) => {
    const wt = await wm.create(name);
    await writeFile(join(wt.path, file), `${name}\n`);
    await git(wt.path, 'add', file);
    await git(wt.path, 'commit', '-qm', `${name} work`);
    return wt.path;
  };
  const settled = (names: string[]) => waitFor(async () => {
    const m = await q.latestByTeammate();
    return names.every((n) => ['merged', 'failed'].includes(m.get(n)?.state ?? '')) ? m : undefined;
  }, 30_000, `${names.join(', ')} settled`) as Promise<Map<string, MergeEntry>>;
  const scratches = async () => (await git(root, 'worktree', 'list', '--porcelain')).stdout.split('\n')
    .filter((l) => l.startsWith('worktree ') && l.includes('agent-teams-merge-')).map((l) => l.slice(9));
  const rev = async (r: string) => (await git(root, 'rev-parse', r)).stdout.trim();
  return { root, q, branch, settled, scratches, rev };
}

test('queued while the first is tested: the second lands on top of the first, its merge made from its branch as it is when claimed', async (t) => {
  const s = await setup(t);
  s.q.start();
  await s.branch('ann');
  const ben = await s.branch('ben');
  const base = await s.rev('main');
  await s.q.add('ann', { by: 'user', testCommand: 'sleep 1' });
  await s.q.add('ben', { by: 'user', testCommand: 'test -e ann.txt && test -e ben.txt && test -e late.txt' });
  // ben commits more while ann's test runs (before ben's entry is claimed).
  await new Promise((r) => setTimeout(r, 500));
  await writeFile(join(ben, 'late.txt'), 'late\n');
  await git(ben, 'add', 'late.txt');
  await git(ben, 'commit', '-qm', 'ben, later');
  const done = await s.settled(['ann', 'ben']);
  assert.equal(done.get('ann')?.state, 'merged', done.get('ann')?.reason ?? '');
  assert.equal(done.get('ben')?.state, 'merged', `${done.get('ben')?.reason}\n${done.get('ben')?.output_tail}`);
  assert.equal(await s.rev('main'), done.get('ben')!.commit);
  assert.equal(await s.rev('main^1'), done.get('ann')!.commit, 'ben landed on top of ann');
  assert.equal(await s.rev('main^1^1'), base);
  assert.equal(await s.rev('main^2'), await s.rev('wt/ben'), "ben's merge holds its later commit");
  assert.deepEqual(await status(s.root), []);
});

test('the first fails its test: the second does not land on the failed merge, it is merged again onto the branch as it is', async (t) => {
  const s = await setup(t);
  s.q.start();
  await s.branch('ann');
  await s.branch('ben');
  const base = await s.rev('main');
  await s.q.add('ann', { by: 'user', testCommand: 'sleep 1; exit 3' });
  await s.q.add('ben', { by: 'user', testCommand: 'test ! -e ann.txt && test -e ben.txt' });
  const done = await s.settled(['ann', 'ben']);
  assert.equal(done.get('ann')?.state, 'failed');
  assert.equal(done.get('ben')?.state, 'merged', `${done.get('ben')?.reason}\n${done.get('ben')?.output_tail}`);
  assert.equal(await s.rev('main^1'), base, "ben's merge is onto main as it was, not onto ann's failed merge");
  assert.equal((await git(s.root, 'ls-tree', '--name-only', 'main')).stdout.split('\n').filter(Boolean).sort().join(' '), 'ben.txt shared.txt');
});

test('the scratch checkout is gone from disk and from `git worktree list` once the run ends, and made anew by the next run', async (t) => {
  const s = await setup(t);
  s.q.start();
  await s.branch('ann');
  await s.branch('ben');
  await s.q.add('ann', { by: 'user', testCommand: 'true' });
  await s.settled(['ann']);
  await s.q.idle();
  assert.deepEqual(await s.scratches(), [], 'no scratch checkout after the run');
  await s.q.add('ben', { by: 'user', testCommand: 'test -e ann.txt' });
  assert.equal((await s.settled(['ben'])).get('ben')?.state, 'merged');
  await s.q.idle();
  assert.deepEqual(await s.scratches(), []);
});

test('a repository that signs its commits (commit.gpgSign): the queue\'s merge commit is signed', async (t) => {
  // A stand-in for gpg: what git needs to see on its status line, and a signature block.
  const gpg = join(await tempDir(t), 'fake-gpg.sh');
  await writeFile(gpg, '#!/bin/sh\ncat >/dev/null\nprintf \'\\n[GNUPG:] SIG_CREATED D 1 8 00 0 X\\n\' >&2\nprintf -- \'-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n\'\n', { mode: 0o755 });
  t.after(() => rm(gpg, { force: true }));
  const s = await setup(t, async (root) => {
    await git(root, 'config', 'commit.gpgsign', 'true');
    await git(root, 'config', 'gpg.program', gpg);
  });
  s.q.start();
  await s.branch('ann');
  await s.q.add('ann', { by: 'user', testCommand: 'true' });
  const e = (await s.settled(['ann'])).get('ann')!;
  assert.equal(e.state, 'merged', e.reason ?? '');
  assert.match((await git(s.root, 'cat-file', '-p', 'main')).stdout, /^gpgsig -----BEGIN PGP SIGNATURE-----/m);
});
