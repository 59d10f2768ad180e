// The merge queue's git shell (src/core/merge/git-shell.ts): git started from one long-lived
// sh gives what a git process of its own gives — output byte for byte (NULs included),
// arguments as they are (quotes, spaces, newlines), exit codes, its folder — and a call over its
// time limit is stopped without stopping the calls after it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { GitShell } from '../../src/core/merge/git-shell';
import { WorktreeError } from '../../src/core/worktree/errors';
import { tempDir } from '../helpers/tmp';
import { git, initRepo } from './git-helpers';

test('GitShell: same output, arguments, exit codes and folders as a git process; a stuck call is stopped, the next one runs', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, "it's a file.txt");
  const msg = `it's "quoted" $HOME \`x\`\nsecond line`;
  await writeFile(join(root, "it's a file.txt"), 'changed\n');
  await git(root, 'commit', '-qam', msg);
  const sh = new GitShell();
  t.after(() => sh.dispose());
  const [ours, theirs] = await Promise.all([
    sh.run(['ls-tree', '-z', '--name-only', 'HEAD'], { cwd: root }),
    git(root, 'ls-tree', '-z', '--name-only', 'HEAD'),
  ]);
  assert.equal(ours.stdout, theirs.stdout);
  assert.equal(ours.stdout, "it's a file.txt\0");
  assert.equal((await sh.run(['log', '-1', '--format=%B'], { cwd: root })).stdout, `${msg}\n\n`);
  // An argument the shell would expand, were it not quoted.
  assert.equal((await sh.run(['log', '-1', '--format=%s', '--grep', '$HOME'], { cwd: root, extraEnv: { GIT_OPTIONAL_LOCKS: '0' } })).code, 0);
  const bad = await sh.run(['rev-parse', '--verify', 'no-such-ref'], { cwd: root, allowFail: true });
  assert.equal(bad.code, 128);
  assert.match(bad.stderr, /fatal/);
  await assert.rejects(sh.run(['rev-parse', '--verify', 'no-such-ref'], { cwd: root }), (e: unknown) => e instanceof WorktreeError && e.code === 'git-failed');
  // A stuck call (git waiting on an editor that sleeps): stopped at its limit, reported as a timeout.
  const stuck = sh.run(['commit', '--allow-empty'], { cwd: root, timeoutMs: 500, extraEnv: { GIT_EDITOR: 'sleep 30 #' } });
  await assert.rejects(stuck, (e: unknown) => e instanceof WorktreeError && e.code === 'timeout');
  assert.equal((await sh.run(['rev-parse', 'HEAD'], { cwd: root })).stdout.trim(), (await git(root, 'rev-parse', 'HEAD')).stdout.trim());
});

test('GitShell without git on PATH: the error says git is missing', async (t) => {
  const root = await tempDir(t);
  const sh = new GitShell({ env: { PATH: '/nonexistent' } });
  t.after(() => sh.dispose());
  await assert.rejects(sh.run(['status'], { cwd: root }), (e: unknown) => e instanceof WorktreeError && e.code === 'git-missing');
});

test('GitShell: output of any size and shape comes back whole — no final newline, lines that look like its own end markers, stdout and stderr apart', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'a.txt');
  const big = `${'x'.repeat(70)}\n`.repeat(40_000) + 'no newline at the end';
  const tricky = '\n0123456789abcdef0123456789abcdef 0\n\nfake 1\n';
  const [b, k] = [await writeBlob(root, big), await writeBlob(root, tricky)];
  const sh = new GitShell();
  t.after(() => sh.dispose());
  const [one, two, bad] = await Promise.all([
    sh.run(['cat-file', '-p', b], { cwd: root }),
    sh.run(['cat-file', '-p', k], { cwd: root }),
    sh.run(['cat-file', '-p', 'no-such-object'], { cwd: root, allowFail: true }),
  ]);
  assert.equal(one.stdout.length, big.length);
  assert.equal(one.stdout, big);
  assert.equal(two.stdout, tricky);
  assert.equal(bad.code, 128);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /no-such-object/);
});

async function writeBlob(root: string, text: string): Promise<string> {
  const f = join(root, `blob-${text.length}.txt`);
  await writeFile(f, text);
  return (await git(root, 'hash-object', '-w', f)).stdout.trim();
}
