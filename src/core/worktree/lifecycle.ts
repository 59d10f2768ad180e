// Creating, keeping and removing worktrees. Each runs under the worktree lock with a
// reconciled index, checks every precondition before its first write, and undoes its own
// partial work when a later step fails.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { branchOf, exists, type EventLogger, type WorktreeContext } from './context';
import { WorktreeError } from './errors';
import { ignoredEntries, refuseIgnored, withoutCopied, withoutRegenerable, type IgnoredEntry } from './ignored';
import { firstLines, git } from './git';
import { branchExists, commitAll, dirtyFiles, refuseDirty, resolveCommit, type RepoInfo } from './repo';
import { nowSeconds, writeIndex, type WorktreeIndex, type WorktreeRecord } from './store';

export interface OpEnv {
  ctx: WorktreeContext;
  info: RepoInfo;
  index: WorktreeIndex;
  log: EventLogger;
}

export interface CreateOptions {
  /** Commit-ish to branch from (default `HEAD`). */
  base?: string;
  /**
   * Branching from HEAD refuses while the main checkout has uncommitted tracked changes: the
   * teammate would silently work without them. Set to branch anyway.
   */
  allowDirtyBase?: boolean;
}

export interface CreateHooks {
  /** Fault injection for tests: after `git worktree add`, before the index write. */
  afterGitAdd?: (name: string) => void | Promise<void>;
}

export function findRecord(index: WorktreeIndex, name: string): WorktreeRecord {
  const rec = index.worktrees.find((r) => r.name === name);
  if (!rec) throw new WorktreeError('not-found', `no worktree named "${name}"`);
  return rec;
}

export async function createWorktree(env: OpEnv, name: string, opts: CreateOptions, hooks: CreateHooks): Promise<WorktreeRecord> {
  const { ctx, index } = env;
  const branch = branchOf(name);
  const path = join(ctx.dir, name);
  const g = { ...ctx.git, cwd: ctx.root };
  const existing = index.worktrees.find((r) => r.name === name);
  if (existing) {
    throw new WorktreeError('exists', `worktree "${name}" already exists (${existing.status}, branch ${existing.branch}); merge or remove it first`);
  }
  const baseRef = opts.base ?? 'HEAD';
  const checkDirty = baseRef === 'HEAD' && !opts.allowDirtyBase;
  const [branchTaken, pathTaken, baseCommit, dirty] = await Promise.all([
    branchExists(ctx.root, branch, ctx.git),
    exists(path),
    resolveCommit(ctx.root, baseRef, ctx.git),
    checkDirty ? dirtyFiles(ctx.root, ctx.git, false) : Promise.resolve([]),
  ]);
  if (branchTaken) throw new WorktreeError('branch-taken', `branch ${branch} already exists; delete or rename it, or pick another teammate name`);
  if (pathTaken) throw new WorktreeError('path-exists', `${path} already exists; move it away first`);
  if (!baseCommit) {
    throw new WorktreeError('bad-base', `base "${baseRef}" does not name a commit${baseRef === 'HEAD' ? ' (does the repository have a commit yet?)' : ''}`);
  }
  refuseDirty('dirty-base', dirty, 'the main checkout',
    'the new worktree starts from the last commit and would not contain them: commit or stash them first');

  await env.log('create', 'before', name, { base: baseCommit });
  const added = await git(['worktree', 'add', '--quiet', '-b', branch, path, baseCommit], { ...g, allowFail: true });
  if (added.code !== 0) {
    await rollbackCreate(ctx, path, branch);
    throw new WorktreeError('git-failed', `git worktree add failed: ${firstLines(added.stderr)}`);
  }
  const now = nowSeconds();
  const rec: WorktreeRecord = { name, branch, baseRef, baseCommit, subdir: env.info.subdir, status: 'active', createdAt: now, updatedAt: now };
  try {
    await hooks.afterGitAdd?.(name);
    await writeIndex(ctx.indexPath, { ...index, worktrees: [...index.worktrees, rec] });
  } catch (err) {
    await rollbackCreate(ctx, path, branch);
    throw err;
  }
  index.worktrees.push(rec);
  return rec;
}

/**
 * A kept or missing worktree whose branch still exists gets its checkout back on that branch
 * (a re-spawned teammate continues its own work). A missing one whose branch is gone too is
 * forgotten and created afresh. Runs under the lock after reconcile, which has already
 * dropped git's stale registration of a vanished checkout.
 */
export async function reopenWorktree(env: OpEnv, name: string, opts: CreateOptions, hooks: CreateHooks): Promise<WorktreeRecord> {
  const { ctx } = env;
  const rec = findRecord(env.index, name);
  if (rec.status === 'active') return rec;
  const path = join(ctx.dir, name);
  const g = { ...ctx.git, cwd: ctx.root };
  if (!(await branchExists(ctx.root, rec.branch, ctx.git))) {
    env.index.worktrees = env.index.worktrees.filter((r) => r !== rec);
    return createWorktree(env, name, opts, hooks);
  }
  if (await exists(path)) throw new WorktreeError('path-exists', `${path} already exists; move it away first`);
  await env.log('create', 'before', name, { base: rec.baseCommit });
  const added = await git(['worktree', 'add', '--quiet', path, rec.branch], { ...g, allowFail: true });
  if (added.code !== 0) {
    // The branch is the teammate's work: only the half-made checkout is undone.
    await rm(path, { recursive: true, force: true });
    await git(['worktree', 'prune'], { ...g, allowFail: true });
    throw new WorktreeError('git-failed', `git worktree add failed: ${firstLines(added.stderr)}`);
  }
  Object.assign(rec, { status: 'active', updatedAt: nowSeconds() });
  await writeIndex(ctx.indexPath, env.index);
  return rec;
}

// Only called after we checked that neither the path nor the branch existed, so everything
// found here is ours to delete.
async function rollbackCreate(ctx: WorktreeContext, path: string, branch: string): Promise<void> {
  const g = { ...ctx.git, cwd: ctx.root, allowFail: true };
  await git(['worktree', 'remove', '--force', '--force', path], g);
  await rm(path, { recursive: true, force: true });
  await git(['worktree', 'remove', '--force', '--force', path], g); // registration left if the dir was half-made
  await git(['branch', '-D', branch], g);
}

export interface KeepOptions {
  /** Commit uncommitted changes with this message first; without it they refuse the keep. */
  commitMessage?: string;
  /** Delete the checkout's git-ignored files (`.env`, build output) with it; else they refuse the keep. */
  force?: boolean;
}

/**
 * Keep = the work survives as branch `wt/<name>`, the checkout goes. Commits are the durable,
 * git-native form of the work; the checkout is what a teammate edits, so removing it ends
 * the teammate's hold on it and frees the disk. diff/merge/remove keep working on the branch.
 */
export async function keepWorktree(env: OpEnv, name: string, opts: KeepOptions): Promise<WorktreeRecord> {
  const { ctx } = env;
  const rec = findRecord(env.index, name);
  if (rec.status === 'kept') return rec;
  const path = join(ctx.dir, name);
  if (rec.status === 'active') {
    const [pending, found] = await Promise.all([dirtyFiles(path, ctx.git, true), ignoredEntries(path, ctx.git)]);
    const ignored = withoutCopied(found, rec.copied, rec.subdir);
    if (pending.length && !opts.commitMessage) {
      refuseDirty('dirty-worktree', pending, `worktree "${name}"`, 'commit them first, or pass a commit message to keep them');
    }
    if (!opts.force) refuseIgnored(ignored, name, 'Keeping', 'move what you need out of it, or keep with force to delete them');
    await env.log('keep', 'before', name);
    if (pending.length) await commitAll(path, opts.commitMessage ?? '', ctx.git);
    // Not forced: if a teammate wrote a file since the check, git refuses and nothing is lost.
    const r = await git(['worktree', 'remove', path], { ...ctx.git, cwd: ctx.root, allowFail: true });
    if (r.code !== 0) throw new WorktreeError('git-failed', `could not remove the checkout of "${name}": ${firstLines(r.stderr)}`);
  } else {
    await env.log('keep', 'before', name);
  }
  Object.assign(rec, { status: 'kept', updatedAt: nowSeconds() });
  await writeIndex(ctx.indexPath, env.index);
  return rec;
}

export interface RemoveOptions {
  /** Discard uncommitted changes and commits not merged into the current branch. */
  force?: boolean;
  /** Dependencies and caches (ignored.ts REGENERABLE) are not counted as ignored files the teammate made: the removal after a landing. */
  regenerableGo?: boolean;
}

export interface RemoveResult {
  name: string;
  branch: string;
  /** Uncommitted files thrown away (only with force). */
  discardedFiles: string[];
  /** Commits of the branch that the main checkout's HEAD did not contain (only with force). */
  discardedCommits: number;
  /** Git-ignored files and folders deleted with the checkout (only with force). */
  discardedIgnored: IgnoredEntry[];
}

export async function removeWorktree(env: OpEnv, name: string, opts: RemoveOptions): Promise<RemoveResult> {
  const { ctx } = env;
  const rec = findRecord(env.index, name);
  const path = join(ctx.dir, name);
  const g = { ...ctx.git, cwd: ctx.root };
  const hasCheckout = rec.status === 'active';
  const [pending, hasBranch, found] = await Promise.all([
    hasCheckout ? dirtyFiles(path, ctx.git, true) : Promise.resolve([]),
    branchExists(ctx.root, rec.branch, ctx.git),
    hasCheckout ? ignoredEntries(path, ctx.git) : Promise.resolve([]),
  ]);
  const mine = withoutCopied(found, rec.copied, rec.subdir);
  const ignored = opts.regenerableGo ? withoutRegenerable(mine) : mine;
  if (pending.length && !opts.force) {
    refuseDirty('dirty-worktree', pending, `worktree "${name}"`, 'merge or keep it, or remove with force to discard them');
  }
  if (!opts.force) refuseIgnored(ignored, name, 'Removing', 'move what you need out of it, or remove with force to delete them');
  // Commits the teammate made that the current branch lacks; the base's own history does not count.
  const unmerged = hasBranch
    ? Number((await git(['rev-list', '--count', rec.branch, '^HEAD', `^${rec.baseCommit}`, '--'], g)).stdout.trim())
    : 0;
  if (unmerged > 0 && !opts.force) {
    throw new WorktreeError('unmerged-commits', `${rec.branch} has ${unmerged} commit(s) not merged into the current branch; merge or keep it, or remove with force to discard them`);
  }

  await env.log('remove', 'before', name);
  // Checkout, then branch, then record: a crash in between leaves a state reconcile
  // understands (missing checkout) and a second remove finishes.
  if (hasCheckout) {
    const r = await git(['worktree', 'remove', ...(opts.force ? ['--force', '--force'] : []), path], { ...g, allowFail: true });
    if (r.code !== 0 && (await exists(path))) {
      throw new WorktreeError('git-failed', `could not remove the checkout of "${name}": ${firstLines(r.stderr)}`);
    }
  }
  if (hasBranch) {
    const r = await git(['branch', '-D', rec.branch], { ...g, allowFail: true });
    if (r.code !== 0) throw new WorktreeError('git-failed', `could not delete branch ${rec.branch}: ${firstLines(r.stderr)}`);
  }
  env.index.worktrees = env.index.worktrees.filter((r) => r !== rec);
  await writeIndex(ctx.indexPath, env.index);
  return { name, branch: rec.branch, discardedFiles: pending, discardedCommits: unmerged, discardedIgnored: ignored };
}
