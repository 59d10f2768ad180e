// The merge queue's git objects without a process each (src/core/merge/object-store.ts): the
// file list of a merge is what `git diff-tree -r --no-renames` says, the merge commit written
// from here is a commit git accepts as its own, and a repository that signs its commits gets
// them from git itself.
import assert from 'node:assert/strict';
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { commitSetup, ObjectReader, treeDiff, writeCommit } from '../../src/core/merge/object-store';
import { MergeQueue } from '../../src/core/merge/merge-queue';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { DEFAULT_SANDBOX } from '../../src/shared/sandbox-schemas';
import { tempDir, waitFor } from '../helpers/tmp';
import { git, initRepo } from './git-helpers';

const tree = async (root: string, rev: string) => (await git(root, 'rev-parse', `${rev}^{tree}`)).stdout.trim();

test('treeDiff lists what git diff-tree lists: edits, additions in new folders, a folder removed, a file turned folder, a mode change, a symlink, a submodule link', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'a.txt');
  await mkdir(join(root, 'gone', 'deep'), { recursive: true });
  await mkdir(join(root, 'keep'), { recursive: true });
  await writeFile(join(root, 'gone', 'one.txt'), '1\n');
  await writeFile(join(root, 'gone', 'deep', 'two.txt'), '2\n');
  await writeFile(join(root, 'keep', 'same.txt'), 'same\n');
  await writeFile(join(root, 'x'), 'file\n');
  await writeFile(join(root, 'run.sh'), 'echo\n');
  await git(root, 'add', '-A');
  await git(root, 'commit', '-qm', 'before');
  const before = await tree(root, 'HEAD');
  await writeFile(join(root, 'a.txt'), 'changed\n');
  await rm(join(root, 'gone'), { recursive: true });
  await rm(join(root, 'x'));
  await mkdir(join(root, 'x'));
  await writeFile(join(root, 'x', 'inside.txt'), 'now a folder\n');
  await mkdir(join(root, 'new', 'nested'), { recursive: true });
  await writeFile(join(root, 'new', 'nested', 'n.txt'), 'n\n');
  await chmod(join(root, 'run.sh'), 0o755);
  await symlink('a.txt', join(root, 'link'));
  await git(root, 'add', '-A');
  await git(root, 'update-index', '--add', '--cacheinfo', `160000,${(await git(root, 'rev-parse', 'HEAD')).stdout.trim()},sub`);
  await git(root, 'commit', '-qm', 'after');
  const after = await tree(root, 'HEAD');
  const reader = new ObjectReader(root);
  t.after(() => reader.dispose());
  const ours = await treeDiff(reader, before, after, 20);
  const raw = (await git(root, 'diff-tree', '-r', '--name-status', '--no-renames', '-z', before, after)).stdout.split('\0').filter(Boolean);
  const files: string[] = [];
  const added: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    files.push(raw[i + 1]!);
    if (raw[i] === 'A') added.push(raw[i + 1]!);
  }
  assert.deepEqual(ours.files, [...new Set(files)].sort());
  assert.deepEqual(ours.added, [...new Set(added)].sort());
  assert.ok(ours.files.includes('x') && ours.added.includes('x/inside.txt') && ours.added.includes('sub') && ours.files.includes('run.sh'));
  assert.deepEqual(await treeDiff(reader, after, after, 20), { files: [], added: [] });
  // A name that is no object, and a ref: answered, not hung.
  assert.equal(await reader.read('refs/heads/no-such-branch'), null);
  assert.equal(await reader.commitOf('refs/heads/main'), (await git(root, 'rev-parse', 'main')).stdout.trim());
});

test('writeCommit: the merge commit written from here is one git checks and reads as its own (tree, parents, identity, message)', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'a.txt');
  await git(root, 'checkout', '-qb', 'side');
  await writeFile(join(root, 'b.txt'), 'b\n');
  await git(root, 'add', 'b.txt');
  await git(root, 'commit', '-qm', 'side');
  const [main, side] = [(await git(root, 'rev-parse', 'main')).stdout.trim(), (await git(root, 'rev-parse', 'side')).stdout.trim()];
  const merged = (await git(root, 'merge-tree', '--write-tree', main, side)).stdout.trim();
  const vars = (await git(root, '-c', 'user.name=Ann Example', '-c', 'user.email=ann@example.com', 'var', '-l')).stdout;
  const objects = (await git(root, 'rev-parse', '--git-path', 'objects')).stdout.trim();
  const setup = commitSetup(vars, join(root, objects), 'sha1', {});
  assert.equal(setup.canWrite, true);
  const oid = await writeCommit(setup, merged, [main, side], 'Merge side (teammate ann) into main');
  assert.equal((await git(root, 'cat-file', '-t', oid)).stdout.trim(), 'commit');
  await git(root, 'fsck', '--strict', '--no-dangling');
  assert.equal((await git(root, 'rev-parse', `${oid}^{tree}`)).stdout.trim(), merged);
  assert.equal((await git(root, 'rev-parse', `${oid}^1`)).stdout.trim(), main);
  assert.equal((await git(root, 'rev-parse', `${oid}^2`)).stdout.trim(), side);
  assert.equal((await git(root, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', oid)).stdout, 'Ann Example <ann@example.com>|Ann Example <ann@example.com>|Merge side (teammate ann) into main\n\n');
  const when = Number((await git(root, 'log', '-1', '--format=%ct', oid)).stdout.trim());
  assert.ok(Math.abs(when - Date.now() / 1000) < 60, 'dated now');
});

test('settings writeCommit cannot honour are left to git: signing, another encoding, a fixed date, a shared repository', () => {
  const base = 'user.name=A\nGIT_AUTHOR_IDENT=A <a@b> 1 +0000\nGIT_COMMITTER_IDENT=A <a@b> 1 +0000\n';
  assert.equal(commitSetup(base, '/o', 'sha1', {}).canWrite, true);
  assert.equal(commitSetup(`commit.gpgsign=true\n${base}`, '/o', 'sha1', {}).canWrite, false);
  assert.equal(commitSetup(`i18n.commitencoding=ISO-8859-1\n${base}`, '/o', 'sha1', {}).canWrite, false);
  assert.equal(commitSetup(`core.sharedrepository=group\n${base}`, '/o', 'sha1', {}).canWrite, false);
  assert.equal(commitSetup(base, '/o', 'sha1', { GIT_COMMITTER_DATE: '@0 +0000' }).canWrite, false);
  assert.equal(commitSetup(base, '/o', 'sha256', {}).canWrite, true);
  assert.equal(commitSetup(base, '/o', 'reftable-or-other', {}).canWrite, false);
});

test('a repository that signs its commits (commit.gpgSign): the queue\'s merge commit is signed, made by git', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'a.txt');
  // A stand-in for gpg: what git needs to see on its status line, and a signature block.
  const gpg = join(root, '..', `fake-gpg-${Date.now()}.sh`);
  await writeFile(gpg, '#!/bin/sh\ncat >/dev/null\nprintf \'\\n[GNUPG:] SIG_CREATED D 1 8 00 0 X\\n\' >&2\nprintf -- \'-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n\'\n', { mode: 0o755 });
  t.after(() => rm(gpg, { force: true }));
  await git(root, 'config', 'commit.gpgsign', 'true');
  await git(root, 'config', 'gpg.program', gpg);
  const wm = new WorktreeManager(root);
  const wt = await wm.create('ann');
  await writeFile(join(wt.path, 'ann.txt'), 'ann\n');
  await git(wt.path, 'add', 'ann.txt');
  await git(wt.path, '-c', 'commit.gpgsign=false', 'commit', '-qm', 'ann');
  const team = await new Team(root).init();
  const q = new MergeQueue({ team, worktrees: wm, hostId: 'test', settings: () => ({ sandbox: { ...DEFAULT_SANDBOX, mode: 'off' } }) });
  t.after(async () => { await q.dispose(); team.dispose(); });
  q.start();
  await q.add('ann', { by: 'user', testCommand: 'true' });
  const e = (await waitFor(async () => {
    const x = (await q.latestByTeammate()).get('ann');
    return x?.state === 'merged' || x?.state === 'failed' ? x : undefined;
  }, 20_000, 'ann settled'))!;
  assert.equal(e.state, 'merged', e.reason ?? '');
  assert.match((await git(root, 'cat-file', '-p', 'main')).stdout, /^gpgsig -----BEGIN PGP SIGNATURE-----/m);
});
