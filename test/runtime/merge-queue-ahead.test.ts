// The merge queue's run of entries (docs/file-formats.md, "Merge queue"): the next entry's
// merge is made while the entry before it is tested, onto that entry's merge commit — used
// only if that commit landed and the branch did not move; the scratch checkout is reused by
// entries queued within `lingerMs` and removed after it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { MergeQueue } from '../../src/core/merge/merge-queue';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { DEFAULT_SANDBOX } from '../../src/shared/sandbox-schemas';
import type { MergeEntry } from '../../src/shared/merge-queue-schema';
import { tempDir, waitFor } from '../helpers/tmp';
import { git, initRepo, status } from './git-helpers';

async function setup(t: Parameters<typeof tempDir>[0], lingerMs: number) {
  const root = await tempDir(t);
  await initRepo(root, 'shared.txt');
  const wm = new WorktreeManager(root);
  const team = await new Team(root).init();
  const q = new MergeQueue({ team, worktrees: wm, hostId: 'test', lingerMs, settings: () => ({ sandbox: { ...DEFAULT_SANDBOX, mode: 'off' } }) });
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
  const s = await setup(t, 30_000);
  s.q.start();
  await s.branch('ann');
  const ben = await s.branch('ben');
  const base = await s.rev('main');
  await s.q.add('ann', { by: 'user', testCommand: 'sleep 1' });
  await s.q.add('ben', { by: 'user', testCommand: 'test -e ann.txt && test -e ben.txt && test -e late.txt' });
  // ben commits more while ann's test runs (after ben's merge may have been made ahead).
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
  const s = await setup(t, 30_000);
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

test('the scratch checkout outlives a run by lingerMs: an entry queued meanwhile reuses it; after that it is removed', async (t) => {
  const s = await setup(t, 1_500);
  s.q.start();
  await s.branch('ann');
  await s.branch('ben');
  await s.q.add('ann', { by: 'user', testCommand: 'true' });
  await s.settled(['ann']);
  await s.q.idle();
  const first = await s.scratches();
  assert.equal(first.length, 1, 'kept for the next entry');
  await s.q.add('ben', { by: 'user', testCommand: 'true' });
  assert.equal((await s.settled(['ben'])).get('ben')?.state, 'merged');
  assert.deepEqual(await s.scratches(), first, 'the same checkout was used');
  await waitFor(async () => ((await s.scratches()).length === 0 ? true : undefined), 10_000, 'scratch removed after the linger');
});
