// Worktree isolation against real git in throwaway repositories.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WorktreeError } from '../src/core/worktree/errors';
import { withFileLock } from '../src/core/worktree/lock';
import { WorktreeManager, type WorktreeManagerOptions } from '../src/core/worktree/manager';

const temps: string[] = [];
after(async () => { for (const t of temps) await rm(t, { recursive: true, force: true }); });

async function tmp(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), `wt-${prefix}-`));
  temps.push(d);
  return d;
}

// Hermetic git: no global/system config, so no identity is configured and the manager's
// -c user.name fallback is exercised.
let envCache: NodeJS.ProcessEnv | undefined;
async function gitEnv(): Promise<NodeJS.ProcessEnv> {
  if (envCache) return envCache;
  const home = await tmp('home');
  const empty = join(home, 'gitconfig');
  await writeFile(empty, '');
  envCache = { ...process.env, HOME: home, GIT_CONFIG_GLOBAL: empty, GIT_CONFIG_NOSYSTEM: '1' };
  return envCache;
}

function sh(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
  });
}
async function g(cwd: string, ...args: string[]): Promise<string> {
  const r = await sh(cwd, args, await gitEnv());
  assert.equal(r.code, 0, `git ${args.join(' ')}: ${r.out}`);
  return r.out.trim();
}
const exists = (p: string) => stat(p).then(() => true, () => false);

async function repo(files: Record<string, string> = { 'shared.txt': 'one\ntwo\nthree\n' }): Promise<string> {
  const dir = await tmp('repo');
  await g(dir, 'init', '-q', '-b', 'main');
  for (const [f, c] of Object.entries(files)) {
    await mkdir(dirname(join(dir, f)), { recursive: true });
    await writeFile(join(dir, f), c);
  }
  await g(dir, 'add', '-A');
  await g(dir, 'commit', '-q', '-m', 'init');
  return dir;
}
async function manager(root: string, extra: WorktreeManagerOptions = {}): Promise<WorktreeManager> {
  return new WorktreeManager(root, { env: await gitEnv(), ...extra });
}
async function rejectsWith(p: Promise<unknown>, code: string, text?: RegExp): Promise<WorktreeError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof WorktreeError, `expected WorktreeError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (text) assert.match(err.message, text);
    return err;
  }
  assert.fail(`expected ${code}`);
}
async function events(root: string): Promise<Array<Record<string, unknown>>> {
  const raw = await readFile(join(root, '.worktrees', 'events.jsonl'), 'utf8');
  return raw.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}
/** Only the branches and worktrees a failed operation might have left behind. */
async function leftovers(root: string): Promise<{ branches: string; worktrees: string; dirs: string[] }> {
  const dirs = await readdir(join(root, '.worktrees'), { withFileTypes: true }).catch(() => []);
  return {
    branches: await g(root, 'branch', '--list', 'wt/*'),
    worktrees: (await g(root, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree ')).length.toString(),
    dirs: dirs.filter((d) => d.isDirectory()).map((d) => d.name),
  };
}
const clean = { branches: '', worktrees: '1', dirs: [] };

describe('worktree manager', () => {
  it('creates, lists, diffs and removes; .worktrees/ stays out of git status', async () => {
    const root = await repo();
    const m = await manager(root);
    const head = await g(root, 'rev-parse', 'HEAD');
    const wt = await m.create('alice');
    assert.equal(wt.branch, 'wt/alice');
    assert.equal(wt.path, m.pathOf('alice'));
    assert.equal(wt.workdir, wt.path);
    assert.equal(wt.baseCommit, head);
    assert.equal(await g(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'wt/alice');
    assert.deepEqual((await m.list()).map((w) => [w.name, w.status]), [['alice', 'active']]);
    assert.equal((await m.get('alice'))?.status, 'active');
    assert.equal(await m.get('bob'), undefined);
    assert.equal(await g(root, 'status', '--porcelain', '--untracked-files=all'), '');
    assert.match(await readFile(join(root, '.git', 'info', 'exclude'), 'utf8'), /^\/\.worktrees\/$/m);
    assert.equal(await exists(join(root, '.gitignore')), false);

    await writeFile(join(wt.path, 'shared.txt'), 'one\nTWO\nthree\n');
    await writeFile(join(wt.path, 'new.txt'), 'fresh\n');
    const d = await m.diff('alice');
    assert.deepEqual(d.files.map((f) => [f.path, f.change]).sort(), [['new.txt', 'added'], ['shared.txt', 'modified']]);
    assert.deepEqual([...d.uncommitted].sort(), ['new.txt', 'shared.txt']);
    assert.match(d.text, /\+TWO/);
    assert.match(d.text, /\+fresh/);

    await rejectsWith(m.remove('alice'), 'dirty-worktree', /new\.txt/);
    assert.equal(await exists(wt.path), true);
    const removed = await m.remove('alice', { force: true });
    assert.deepEqual([...removed.discardedFiles].sort(), ['new.txt', 'shared.txt']);
    assert.deepEqual(await leftovers(root), clean);
    assert.deepEqual(await m.list(), []);
    assert.deepEqual((await events(root)).map((e) => `${String(e.event)}/${String(e.phase)}`),
      ['create/before', 'create/after', 'remove/failed', 'remove/before', 'remove/after']);
  });

  it('two teammates edit the same file in parallel: first merges clean, second reports the conflict', async () => {
    const root = await repo();
    const m = await manager(root);
    const [a, b] = await Promise.all([m.create('alice'), m.create('bob')]);
    await Promise.all([
      writeFile(join(a.path, 'shared.txt'), 'one\nalice\nthree\n'),
      writeFile(join(b.path, 'shared.txt'), 'one\nbob\nthree\n'),
    ]);
    await g(a.path, 'commit', '-qam', 'alice edits');
    // bob's edit is still uncommitted: refused without a message, committed with one.
    await rejectsWith(m.merge('bob'), 'dirty-worktree', /uncommitted changes \(shared\.txt\)/);

    const first = await m.merge('alice');
    assert.equal(first.status, 'merged');
    assert.equal(first.status === 'merged' && first.into, 'main');
    assert.deepEqual(first.status === 'merged' && first.files, ['shared.txt']);
    assert.equal(await readFile(join(root, 'shared.txt'), 'utf8'), 'one\nalice\nthree\n');
    const before = await g(root, 'rev-parse', 'HEAD');

    const second = await m.merge('bob', { commitMessage: 'bob edits' });
    assert.equal(second.status, 'conflict');
    assert.deepEqual(second.status === 'conflict' && second.files, ['shared.txt']);
    assert.ok(second.pendingCommit);
    assert.equal(await g(root, 'rev-parse', 'HEAD'), before);
    assert.equal((await sh(root, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).code, 1);
    assert.equal(await exists(join(root, '.git', 'MERGE_HEAD')), false);
    assert.equal(await g(root, 'status', '--porcelain'), '');
    assert.doesNotMatch(await readFile(join(root, 'shared.txt'), 'utf8'), /<<<<<<<|>>>>>>>/);
    assert.equal(await g(b.path, 'log', '-1', '--format=%s'), 'bob edits');
    const log = (await events(root)).filter((e) => e.event === 'merge').map((e) => `${String(e.name)}/${String(e.phase)}`);
    assert.deepEqual(log, ['bob/failed', 'alice/before', 'alice/after', 'bob/before', 'bob/failed']);
    assert.deepEqual((await events(root)).at(-1)?.files, ['shared.txt']);
    assert.equal((await m.get('alice'))?.lastMerge?.commit, await g(root, 'rev-parse', 'HEAD'));
    assert.equal((await m.merge('alice')).status, 'up-to-date');
  });

  it('adopts a worktree left by a crash between git worktree add and the index write', async () => {
    const root = await repo();
    const head = await g(root, 'rev-parse', 'HEAD');
    const managerJs = join(__dirname, '..', 'src', 'core', 'worktree', 'manager.js');
    const script = `const { WorktreeManager } = require(${JSON.stringify(managerJs)});
      new WorktreeManager(${JSON.stringify(root)}, { hooks: { afterGitAdd: () => process.kill(process.pid, 'SIGKILL') } })
        .create('carol').then(() => process.exit(3), (e) => { console.error(e); process.exit(4); });`;
    const child = await new Promise<string>((resolve) => {
      execFile(process.execPath, ['-e', script], { env: envCache }, (err) => resolve(String(err ? (err.signal ?? err.code) : 0)));
    });
    assert.equal(child, 'SIGKILL');
    assert.equal(await exists(join(root, '.worktrees', '.lock')), true, 'the dead process left its lock');
    assert.equal(await exists(join(root, '.worktrees', 'index.json')), false);

    const reports: unknown[] = [];
    const m = await manager(root, { onReport: (r) => reports.push(r) });
    const report = await m.reconcile();
    assert.deepEqual(report.adopted, ['carol']);
    const carol = await m.get('carol');
    assert.equal(carol?.status, 'active');
    assert.equal(carol?.adopted, true);
    assert.equal(carol?.baseCommit, head, 'base recovered from the create/before event');
    assert.deepEqual((await m.reconcile()).adopted, [], 'adoption is persisted');
    await m.remove('carol');
    assert.deepEqual(await leftovers(root), clean);
  });

  it('rolls back git worktree add when the index write fails', async () => {
    const root = await repo();
    const m = await manager(root, { hooks: { afterGitAdd: () => { throw new Error('disk full'); } } });
    await assert.rejects(m.create('dave'), /disk full/);
    assert.deepEqual(await leftovers(root), clean);
    assert.deepEqual(await (await manager(root)).list(), []);
    const last = (await events(root)).at(-1);
    assert.equal(last?.phase, 'failed');
    assert.equal(last?.error, 'disk full');
  });

  it('notices a worktree deleted by hand and keeps its branch', async () => {
    const root = await repo();
    const m = await manager(root);
    const wt = await m.create('erin');
    await writeFile(join(wt.path, 'work.txt'), 'done\n');
    await g(wt.path, 'add', '-A');
    await g(wt.path, 'commit', '-qm', 'work');
    await rm(wt.path, { recursive: true, force: true });
    const report = await m.reconcile();
    assert.deepEqual(report.missing, ['erin']);
    assert.equal((await m.get('erin'))?.status, 'missing');
    assert.doesNotMatch(await g(root, 'worktree', 'list', '--porcelain'), /erin/, 'stale registration pruned');
    assert.equal(await g(root, 'branch', '--list', 'wt/erin'), 'wt/erin');
    assert.deepEqual((await m.diff('erin')).files.map((f) => f.path), ['work.txt']);
    await rejectsWith(m.remove('erin'), 'unmerged-commits', /1 commit/);
    assert.equal((await m.remove('erin', { force: true })).discardedCommits, 1);
    assert.deepEqual(await leftovers(root), clean);
  });

  it('keep removes the checkout but keeps the branch, which can still be diffed and merged', async () => {
    const root = await repo();
    const m = await manager(root);
    const wt = await m.create('frank');
    await writeFile(join(wt.path, 'kept.txt'), 'kept\n');
    await rejectsWith(m.keep('frank'), 'dirty-worktree');
    const kept = await m.keep('frank', { commitMessage: 'frank wip' });
    assert.equal(kept.status, 'kept');
    assert.equal(await exists(wt.path), false);
    assert.equal(await g(root, 'log', '-1', '--format=%s', 'wt/frank'), 'frank wip');
    assert.deepEqual((await m.reconcile()).missing, [], 'kept is not missing');
    assert.deepEqual((await m.diff('frank')).files, [{ path: 'kept.txt', change: 'added' }]);
    assert.equal((await m.merge('frank')).status, 'merged');
    await m.remove('frank');
    assert.deepEqual(await leftovers(root), clean);
  });

  it('refuses clearly and leaves nothing behind', async () => {
    const notRepo = await tmp('plain');
    await rejectsWith((await manager(notRepo)).create('gina'), 'not-a-repo', /not in a git repository/);
    assert.deepEqual(await readdir(notRepo), []);

    const noGit = await tmp('nogit');
    const root = await repo();
    await rejectsWith(new WorktreeManager(root, { env: { ...(await gitEnv()), PATH: noGit } }).create('gina'), 'git-missing', /git was not found/);
    assert.equal(await exists(join(root, '.worktrees')), false);

    const m = await manager(root);
    await g(root, 'branch', 'wt/gina');
    await rejectsWith(m.create('gina'), 'branch-taken', /wt\/gina already exists/);
    await g(root, 'branch', '-D', 'wt/gina');
    await rejectsWith(m.create('gina', { base: 'no-such-branch' }), 'bad-base');
    await rejectsWith(m.create('gina', { base: '--output=x' }), 'bad-base');

    await writeFile(join(root, 'shared.txt'), 'dirty\n');
    await rejectsWith(m.create('gina'), 'dirty-base', /shared\.txt/);
    assert.deepEqual(await leftovers(root), clean);
    assert.deepEqual(await m.list(), []);

    await mkdir(join(root, '.worktrees', 'hank'));
    await rejectsWith(m.create('hank', { allowDirtyBase: true }), 'path-exists');
    await rm(join(root, '.worktrees', 'hank'), { recursive: true });
    const hank = await m.create('hank', { allowDirtyBase: true });
    await writeFile(join(hank.path, 'h.txt'), 'h\n');
    await g(hank.path, 'add', '-A');
    await g(hank.path, 'commit', '-qm', 'h');
    await rejectsWith(m.merge('hank'), 'dirty-main', /shared\.txt/);
    assert.equal(await readFile(join(root, 'shared.txt'), 'utf8'), 'dirty\n');
    assert.equal(await exists(join(root, 'h.txt')), false);
    await rejectsWith(m.create('hank', { allowDirtyBase: true }), 'exists');
  });

  it('refuses a .worktrees that is a symbolic link or a file: nothing is written where it points', async () => {
    const root = await repo();
    const elsewhere = await tmp('elsewhere');
    await symlink(elsewhere, join(root, '.worktrees'));
    const m = await manager(root);
    await rejectsWith(m.create('lena'), 'unsafe-path', /is a symbolic link: worktrees are only made in a real \.worktrees folder/);
    await rejectsWith(m.ensure('lena'), 'unsafe-path');
    await rejectsWith(m.list(), 'unsafe-path');
    assert.deepEqual(await readdir(elsewhere), [], 'no checkout, index or event log outside the workspace');
    assert.equal(await g(root, 'branch', '--list', 'wt/*'), '');
    await rm(join(root, '.worktrees'));
    await writeFile(join(root, '.worktrees'), 'not a folder');
    await rejectsWith(m.create('lena'), 'unsafe-path', /is not a folder/);
  });

  it('refuses hostile names before touching any path', async () => {
    const root = await repo();
    const m = await manager(root);
    for (const bad of ['../evil', 'a/b', 'Alice', '', '-rf', 'lead', 'user', '.', 'x'.repeat(40), 'a b', '..']) {
      await rejectsWith(m.create(bad), 'invalid-name');
      await rejectsWith(m.remove(bad, { force: true }), 'invalid-name');
      assert.throws(() => m.pathOf(bad), WorktreeError);
    }
    assert.equal(await exists(join(root, '.worktrees')), false);
  });

  it('moves a corrupt index aside, reports it and rebuilds from git', async () => {
    const root = await repo();
    const m = await manager(root);
    await m.create('ivy');
    await m.create('jack');
    await m.keep('jack');
    await writeFile(join(root, '.worktrees', 'index.json'), '{"version": 1, "worktrees": [');
    const report = await m.reconcile();
    assert.match(report.corrupt?.movedTo ?? '', /index\.json\.corrupt-/);
    assert.equal(await readFile(report.corrupt?.movedTo ?? '', 'utf8'), '{"version": 1, "worktrees": [');
    assert.deepEqual(report.adopted, ['ivy']);
    assert.deepEqual(report.adoptedKept, ['jack']);
    assert.deepEqual((await m.list()).map((w) => `${w.name}:${w.status}`), ['ivy:active', 'jack:kept']);
  });

  it('roots a subfolder workspace at the same subfolder of the checkout', async () => {
    const root = await repo({ 'pkg/a.txt': 'a\n' });
    const sub = join(root, 'pkg');
    const m = await manager(sub);
    const wt = await m.create('kim');
    assert.equal(wt.path, join(sub, '.worktrees', 'kim'));
    assert.equal(wt.workdir, join(sub, '.worktrees', 'kim', 'pkg'));
    assert.equal(await readFile(join(wt.workdir, 'a.txt'), 'utf8'), 'a\n');
    assert.equal(await g(root, 'status', '--porcelain', '--untracked-files=all'), '');
  });

  it('ensure() hands back the existing active worktree', async () => {
    const root = await repo();
    const m = await manager(root);
    const first = await m.ensure('lena');
    await writeFile(join(first.path, 'note.txt'), 'still here\n');
    const again = await m.ensure('lena');
    assert.equal(again.path, first.path);
    assert.equal(await readFile(join(again.path, 'note.txt'), 'utf8'), 'still here\n');
    assert.equal((await events(root)).filter((e) => e.event === 'create').length, 2);
  });

  it('ensure() reopens a kept or vanished worktree on its branch, and starts afresh when the branch is gone too', async () => {
    const root = await repo();
    const m = await manager(root);
    const wt = await m.create('mia');
    await writeFile(join(wt.path, 'mine.txt'), 'v1\n');
    await m.keep('mia', { commitMessage: 'mia wip' });
    const reopened = await m.ensure('mia');
    assert.equal(reopened.status, 'active');
    assert.equal(await readFile(join(reopened.path, 'mine.txt'), 'utf8'), 'v1\n', 'the kept work is checked out again');
    assert.equal(await g(reopened.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'wt/mia');
    assert.equal(reopened.baseCommit, wt.baseCommit, 'diffs stay against the original base');

    // Deleted by hand: the branch (with its commit) comes back as the checkout.
    await rm(reopened.path, { recursive: true, force: true });
    assert.equal(await readFile(join((await m.ensure('mia')).path, 'mine.txt'), 'utf8'), 'v1\n');

    // Checkout and branch both gone: a fresh worktree from HEAD.
    await rm(reopened.path, { recursive: true, force: true });
    await g(root, 'worktree', 'prune');
    await g(root, 'branch', '-D', 'wt/mia');
    const fresh = await m.ensure('mia');
    assert.equal(fresh.status, 'active');
    assert.equal(await exists(join(fresh.path, 'mine.txt')), false);
    assert.equal(fresh.baseCommit, await g(root, 'rev-parse', 'HEAD'));
    assert.deepEqual((await m.list()).map((w) => w.name), ['mia'], 'one record, not two');
    const created = (await events(root)).filter((e) => e.event === 'create');
    assert.deepEqual(created.map((e) => e.phase), ['before', 'after', 'before', 'after', 'before', 'after', 'before', 'after']);
  });
});

describe('worktree lock', () => {
  it('serializes read-modify-write across processes', async () => {
    const dir = await tmp('lock');
    const counter = join(dir, 'n');
    await writeFile(counter, '0');
    const lockJs = join(__dirname, '..', 'src', 'core', 'worktree', 'lock.js');
    const script = `const { withFileLock } = require(${JSON.stringify(lockJs)});
      const fs = require('node:fs/promises');
      (async () => { for (let i = 0; i < 25; i++) await withFileLock(${JSON.stringify(join(dir, '.lock'))}, async () => {
        const n = Number(await fs.readFile(${JSON.stringify(counter)}, 'utf8'));
        await new Promise((r) => setTimeout(r, 1));
        await fs.writeFile(${JSON.stringify(counter)}, String(n + 1));
      }); })().catch((e) => { console.error(e); process.exit(1); });`;
    const codes = await Promise.all([1, 2, 3].map(() => new Promise<number>((resolve) => {
      execFile(process.execPath, ['-e', script], (err) => resolve(err ? 1 : 0));
    })));
    assert.deepEqual(codes, [0, 0, 0]);
    assert.equal(await readFile(counter, 'utf8'), '75');
    assert.equal(await exists(join(dir, '.lock')), false);
  });

  it('breaks a lock whose owner is dead and times out on a live one', async () => {
    const dir = await tmp('lock');
    const lock = join(dir, '.lock');
    // A pid that cannot be alive: above Linux's pid_max limit.
    await writeFile(lock, JSON.stringify({ pid: 2 ** 30, token: 'x', ts: 0 }));
    assert.equal(await withFileLock(lock, async () => 'ran', { timeoutMs: 1000 }), 'ran');
    await writeFile(lock, JSON.stringify({ pid: process.ppid, token: 'y', ts: 0 }));
    await assert.rejects(withFileLock(lock, async () => 'ran', { timeoutMs: 200 }), (e: unknown) => e instanceof WorktreeError && e.code === 'locked');
    assert.match(await readFile(lock, 'utf8'), /"token":"y"/, 'a live lock is never broken');
  });
});
