// The git steps of one merge-queue entry (docs/file-formats.md, "Merge queue"). The merge is
// computed without touching any checkout (`git merge-tree --write-tree`, then the commit object),
// the test runs in a scratch checkout of the merge commit — a detached `git worktree` in a
// temporary folder, made once per run of the queue and moved from merge to merge — so the
// user's checkout never holds a half-merge, and landing is a fast-forward of the checked-out
// branch to the tested merge commit (`git merge --ff-only`), done only while the user's tree is
// clean. Process start-up is most of the cost of each step (bench/merge-queue.bench.ts): the
// branch tip, the commit object and the file list come from one long-lived reader
// (object-store.ts) instead of a process each.
import { lstat, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileList, WorktreeError } from '../worktree/errors';
import { firstLines, git as spawnGit, splitZ, type GitCallOptions, type GitEnvOptions } from '../worktree/git';
import type { GitRun } from './git-shell';
import { commitSetup, ObjectReader, treeDiff, writeCommit, type CommitSetup } from './object-store';

/** How the steps run git: `run` (the worker's GitShell) when given, else a process each. */
export interface QueueGit extends GitEnvOptions {
  run?: GitRun;
}

const git = (args: readonly string[], opts: GitCallOptions & { run?: GitRun }) => (opts.run ?? spawnGit)(args, opts);

export interface RepoPaths {
  top: string;
  /** The workspace folder inside the repository ('' at its root). */
  subdir: string;
  /** This checkout's git dir (where MERGE_HEAD and rebase state live). */
  gitDir: string;
  /** Where new objects go, and how they are named ('sha1' or 'sha256'). */
  objectsDir: string;
  objectFormat: string;
}

export async function repoPaths(root: string, ctx: QueueGit): Promise<RepoPaths> {
  const out = (await git(['rev-parse', '--show-toplevel', '--show-prefix', '--absolute-git-dir', '--git-path', 'objects', '--show-object-format'], { ...ctx, cwd: root })).stdout;
  const [top = '', prefix = '', gitDir = '', objects = '', objectFormat = ''] = out.split('\n');
  return { top, subdir: prefix.replace(/\/+$/, ''), gitDir, objectsDir: resolve(root, objects), objectFormat };
}

/** The run's object reader and how to write a commit (object-store.ts); absent: a git process each. */
export interface Objects {
  reader: ObjectReader;
  setup: CommitSetup;
}

/** Starts a run's Objects: the reader, and the repository's identity and settings (`git var -l`, one process). */
export async function openObjects(p: RepoPaths, identity: string[], ctx: QueueGit): Promise<Objects> {
  const vars = await git([...identity, 'var', '-l'], { ...ctx, cwd: p.top, allowFail: true });
  const setup = commitSetup(vars.code === 0 ? vars.stdout : '', p.objectsDir, p.objectFormat, ctx.env ?? process.env);
  return { reader: new ObjectReader(p.top, ctx), setup };
}

const exists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

/** Why the workspace cannot take a merge now (mid-rebase, mid-merge, detached HEAD), or null. */
export async function busyReason(gitDir: string, branch: string | null): Promise<string | null> {
  if ((await exists(join(gitDir, 'rebase-merge'))) || (await exists(join(gitDir, 'rebase-apply')))) {
    return 'the workspace repository is in the middle of a rebase; finish it (git rebase --continue) or abort it (git rebase --abort) first';
  }
  if (await exists(join(gitDir, 'MERGE_HEAD'))) return 'a merge is in progress in the workspace; finish or abort it first';
  if (!branch) return 'the workspace is not on a branch (detached HEAD); check out the branch to merge into first';
  return null;
}

export interface HeadState {
  /** The checked-out branch, null when HEAD is detached. */
  branch: string | null;
  /** Its commit, null before the first one. */
  oid: string | null;
  /** Tracked files with uncommitted changes. */
  dirty: string[];
  busy: string | null;
}

/** What `git status --porcelain=v2 --branch -z` says: the branch (null when detached), its commit, how far it is ahead of its upstream (null: none given), the changed paths (untracked ones when asked for). */
export function parseStatus(out: string): { branch: string | null; oid: string | null; ahead: number | null; files: string[] } {
  let branch: string | null = null;
  let oid: string | null = null;
  let ahead: number | null = null;
  const files: string[] = [];
  const parts = splitZ(out);
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!;
    if (line.startsWith('# branch.oid ')) oid = /^[0-9a-f]+$/.test(line.slice(13)) ? line.slice(13) : null;
    else if (line.startsWith('# branch.head ')) branch = line.slice(14) === '(detached)' ? null : line.slice(14);
    else if (line.startsWith('# branch.ab +')) ahead = Number(line.slice(13).split(' ')[0]);
    else if (line.startsWith('1 ')) files.push(line.split(' ').slice(8).join(' '));
    else if (line.startsWith('2 ')) { files.push(line.split(' ').slice(9).join(' ')); i++; } // the rename's source follows
    else if (line.startsWith('u ')) files.push(line.split(' ').slice(10).join(' '));
    else if (line.startsWith('? ')) files.push(line.slice(2));
  }
  return { branch, oid, ahead: ahead !== null && Number.isInteger(ahead) ? ahead : null, files };
}

/** The branch HEAD names in `gitDir` (its HEAD file, as gitrepository-layout(5) has it), null when detached. */
export async function headBranch(gitDir: string): Promise<string | null> {
  const head = await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '');
  return /^ref: refs\/heads\/(.+?)\s*$/.exec(head)?.[1] ?? null;
}

/** Branch, commit, dirty tracked files and rebase/merge state of the user's checkout: one `git status`. */
export async function headState(p: RepoPaths, ctx: QueueGit): Promise<HeadState> {
  const r = await git(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=no'], {
    ...ctx, cwd: p.top, extraEnv: { GIT_OPTIONAL_LOCKS: '0' }, // do not fight the user's git for index.lock
  });
  const { branch, oid, files } = parseStatus(r.stdout);
  return { branch, oid, dirty: files, busy: await busyReason(p.gitDir, branch) };
}

export type MergeResult =
  | { kind: 'merged'; commit: string; tree: string; tip: string }
  | { kind: 'conflict'; files: string[] };

/**
 * The merge commit of `branch` onto `base`, made in the object store only (no checkout
 * touched). What it changes is asked separately (changedFiles), so the worker can ask it
 * while the test runs.
 */
export async function mergeCommit(top: string, base: string, branch: string, message: string, identity: string[], ctx: QueueGit, objects?: Objects): Promise<MergeResult> {
  const g = { ...ctx, cwd: top, allowFail: true };
  // The branch's tip, read once: the merge and the commit's second parent are the same commit.
  const tip = objects ? await objects.reader.commitOf(`refs/heads/${branch}`) : branch;
  if (!tip) throw new WorktreeError('merge-failed', `branch ${branch} no longer exists`);
  const t = await git(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', base, tip], g);
  const out = splitZ(t.stdout);
  if (t.code === 1) return { kind: 'conflict', files: [...new Set(out.slice(1))] };
  if (t.code !== 0 || !out[0]) throw new WorktreeError('merge-failed', `git merge-tree failed: ${firstLines(t.stderr || t.stdout)} (the merge queue needs git 2.38 or later)`);
  const tree = out[0];
  // --no-ff as `worktree merge` makes it: one merge commit per hand-in, revertible as a unit.
  if (objects?.setup.canWrite) return { kind: 'merged', commit: await writeCommit(objects.setup, tree, [base, tip], message), tree, tip };
  const c = await git([...identity, 'commit-tree', ...(objects?.setup.sign ? ['-S'] : []), tree, '-p', base, '-p', tip, '-m', message], g);
  if (c.code !== 0) throw new WorktreeError('merge-failed', `git commit-tree failed: ${firstLines(c.stderr)}`);
  return { kind: 'merged', commit: c.stdout.trim(), tree, tip };
}

/** The files a merge's `tree` changes against `base`, and which of them it adds; none: the branch was already part of `base`. */
export async function changedFiles(top: string, base: string, tree: string, ctx: QueueGit, objects?: Objects): Promise<{ files: string[]; added: string[] }> {
  if (objects) {
    const c = await objects.reader.read(base);
    const baseTree = c?.type === 'commit' ? /^tree ([0-9a-f]+)/.exec(c.data.toString('utf8'))?.[1] : undefined;
    if (!baseTree) throw new WorktreeError('git-failed', `commit ${base} could not be read`);
    return treeDiff(objects.reader, baseTree, tree, objects.setup.format === 'sha256' ? 32 : 20);
  }
  const diff = await git(['diff-tree', '-r', '--name-status', '--no-renames', '-z', base, tree, '--'], { ...ctx, cwd: top });
  const d = splitZ(diff.stdout);
  const files: string[] = [];
  const added: string[] = [];
  for (let i = 0; i + 1 < d.length; i += 2) {
    files.push(d[i + 1]!);
    if (d[i] === 'A') added.push(d[i + 1]!);
  }
  return { files, added };
}

/** A detached checkout of `commit` at `dir` (a path that does not exist yet), for the test. */
export async function scratchCheckout(top: string, dir: string, commit: string, ctx: QueueGit): Promise<void> {
  const r = await git(['worktree', 'add', '--detach', '--quiet', dir, commit], { ...ctx, cwd: top, allowFail: true });
  if (r.code !== 0) throw new WorktreeError('git-failed', `could not make a scratch checkout: ${firstLines(r.stderr)}`);
}

/**
 * Moves an existing scratch checkout to `commit` (tracked files as in it, whatever the last
 * test changed; `--detach`, so no branch a test checked out there is moved). False when it
 * cannot (the caller makes a new one).
 */
export async function moveScratch(dir: string, commit: string, ctx: QueueGit): Promise<boolean> {
  const r = await git(['checkout', '--quiet', '--force', '--detach', commit], inScratch(dir, ctx)).catch(() => null);
  return r?.code === 0;
}

/** Removes what a test left in a scratch checkout that git does not track (ignored files too); never fails. */
export async function cleanScratch(dir: string, ctx: QueueGit): Promise<void> {
  await git(['clean', '-ffdxq'], inScratch(dir, ctx)).catch(() => undefined);
}

/** git run in the scratch checkout and there only: never in a repository above it, should the checkout be gone. */
function inScratch(dir: string, ctx: QueueGit) {
  return { ...ctx, cwd: dir, allowFail: true, extraEnv: { GIT_CEILING_DIRECTORIES: dirname(dir) } };
}

/** Removes scratch checkouts (a folder of them, or one) and git's record of them; never fails. */
export async function removeScratch(root: string, scratch: string, ctx: QueueGit): Promise<void> {
  await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  await git(['worktree', 'prune'], { ...ctx, cwd: root, allowFail: true }).catch(() => undefined);
}

export type LandResult =
  | { kind: 'landed'; state: HeadState }
  /** The workspace cannot be updated now; the entry waits with this reason. */
  | { kind: 'wait'; reason: string }
  /** The branch moved (a commit, another branch checked out): merge and test again. */
  | { kind: 'moved' };

/**
 * Advances branch `into` from `base` to `commit` and brings the user's files along, only if
 * `into` is still checked out at `base` and nothing of the user's is in the way.
 */
export async function land(p: RepoPaths, into: string, base: string, commit: string, added: readonly string[], ctx: QueueGit): Promise<LandResult> {
  const s = await headState(p, ctx);
  if (s.busy) return { kind: 'wait', reason: s.busy };
  if (s.branch !== into || s.oid !== base) return { kind: 'moved' };
  if (s.dirty.length) {
    return { kind: 'wait', reason: `the workspace has uncommitted changes (${fileList(s.dirty)}); it lands by itself once they are committed or stashed` };
  }
  // Untracked files where the merge creates files: read-tree would refuse to overwrite them.
  const inWay: string[] = [];
  for (const f of added) if (await exists(join(p.top, f))) inWay.push(f);
  if (inWay.length) {
    return { kind: 'wait', reason: `untracked files in the workspace are in the way of the merge (${fileList(inWay)}); it lands by itself once they are moved away` };
  }
  // One process for both steps (bench/README.md, merge.queue_ms): a fast-forward moves the branch
  // only from a commit the merge contains — `base`, as just seen — so a commit made meanwhile
  // is never dropped, and it brings index and files along first, refusing to overwrite anything.
  // No hooks, no automatic gc, no autostash, no signature check: the queue's own merge commit.
  const r = await git(['-c', 'core.hooksPath=/dev/null', '-c', 'maintenance.auto=false', '-c', 'gc.auto=0',
    'merge', '--ff-only', '--quiet', '--no-stat', '--no-autostash', '--no-verify-signatures', commit], {
    ...ctx, cwd: p.top, allowFail: true, extraEnv: { GIT_REFLOG_ACTION: 'agent-teams merge queue' },
  });
  if (r.code !== 0) {
    // The user's git got there first (a commit, a checkout, an edit, its index lock).
    const now = await headState(p, ctx);
    if (now.busy) return { kind: 'wait', reason: now.busy };
    if (now.branch !== into || now.oid !== base) return { kind: 'moved' };
    return { kind: 'wait', reason: `the workspace could not be brought to the merge (${firstLines(r.stderr) || `git merge exit ${r.code}`}); it is tried again shortly` };
  }
  // Switched to another branch at `base` in the moment between the status and the merge: it went there.
  return { kind: 'landed', state: { branch: (await headBranch(p.gitDir)) ?? into, oid: commit, dirty: [], busy: null } };
}

/**
 * Brings index and files from `base` to `commit` after the ref moved. Also what recovery runs
 * when a host died between the two steps (the index still matches `base`).
 */
export async function syncTree(top: string, base: string, commit: string, ctx: QueueGit): Promise<void> {
  const r = await git(['read-tree', '-m', '-u', base, commit], { ...ctx, cwd: top, allowFail: true });
  if (r.code !== 0) throw new WorktreeError('merge-failed', `the branch advanced to ${commit.slice(0, 12)} but the files could not be brought along (${firstLines(r.stderr)}); run "git read-tree -m -u ${base} ${commit}" in the workspace`);
}

/** Whether the index still holds `commit`'s tree (the files were not brought along yet). */
export async function indexAt(top: string, commit: string, ctx: QueueGit): Promise<boolean> {
  return (await git(['diff-index', '--cached', '--quiet', commit, '--'], { ...ctx, cwd: top, allowFail: true })).code === 0;
}
