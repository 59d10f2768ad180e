// The git steps of one merge-queue entry (docs/file-formats.md, "Merge queue"). The merge is
// made in a scratch checkout — a detached `git worktree` of the workspace branch's tip in a
// temporary folder — so the user's checkout never holds a half-merge; landing is one
// compare-and-swap of the branch ref (`git update-ref <ref> <new> <old>`) followed by a
// fast-forward of the index and files (`git read-tree -m -u <old> <new>`), done only while the
// user's tree is clean.
import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileList, WorktreeError } from '../worktree/errors';
import { firstLines, git, identityArgs, splitZ, type GitEnvOptions } from '../worktree/git';
import { currentBranch, dirtyFiles, resolveCommit } from '../worktree/repo';

export type TrialResult =
  | { kind: 'merged'; commit: string; files: string[] }
  | { kind: 'conflict'; files: string[] }
  /** The branch is already part of the base. */
  | { kind: 'nothing' };

export async function makeScratchDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'agent-teams-merge-'));
}

/** Merges `branch` onto `base` in a new detached checkout at `scratch` (an empty folder). */
export async function trialMerge(root: string, scratch: string, base: string, branch: string, message: string, ctx: GitEnvOptions): Promise<TrialResult> {
  const run = (args: string[], cwd: string) => git(args, { ...ctx, cwd, allowFail: true });
  if ((await run(['merge-base', '--is-ancestor', branch, base], root)).code === 0) return { kind: 'nothing' };
  const added = await run(['worktree', 'add', '--detach', '--quiet', scratch, base], root);
  if (added.code !== 0) throw new WorktreeError('git-failed', `could not make a scratch checkout: ${firstLines(added.stderr)}`);
  const identity = await identityArgs(root, ctx);
  // --no-ff: one merge commit per hand-in, revertible as a unit (`git revert -m 1`), as `worktree merge` makes.
  const merged = await run([...identity, 'merge', '--no-ff', '--no-edit', '-m', message, branch], scratch);
  if (merged.code === 0) {
    const commit = (await git(['rev-parse', 'HEAD'], { ...ctx, cwd: scratch })).stdout.trim();
    const names = await git(['diff', '--name-only', '-z', base, commit, '--'], { ...ctx, cwd: scratch });
    return { kind: 'merged', commit, files: splitZ(names.stdout) };
  }
  const conflicts = splitZ((await run(['diff', '--name-only', '--diff-filter=U', '-z'], scratch)).stdout);
  if (conflicts.length) return { kind: 'conflict', files: conflicts };
  throw new WorktreeError('merge-failed', `merging ${branch} failed: ${firstLines(merged.stderr || merged.stdout, 6)}`);
}

/** Removes a scratch checkout and git's record of it; never fails (it is only litter). */
export async function removeScratch(root: string, scratch: string, ctx: GitEnvOptions): Promise<void> {
  await git(['worktree', 'remove', '--force', '--force', scratch], { ...ctx, cwd: root, allowFail: true }).catch(() => undefined);
  await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  await git(['worktree', 'prune'], { ...ctx, cwd: root, allowFail: true }).catch(() => undefined);
}

/** Why the workspace cannot take a merge now (mid-rebase, mid-merge, detached HEAD), or null. */
export async function repoBusy(root: string, ctx: GitEnvOptions): Promise<string | null> {
  const run = (args: string[]) => git(args, { ...ctx, cwd: root, allowFail: true });
  const paths = (await run(['rev-parse', '--git-path', 'rebase-merge', '--git-path', 'rebase-apply'])).stdout.split('\n').filter(Boolean);
  for (const p of paths) {
    if (await lstat(p.startsWith('/') ? p : join(root, p)).then(() => true, () => false)) {
      return 'the workspace repository is in the middle of a rebase; finish it (git rebase --continue) or abort it (git rebase --abort) first';
    }
  }
  if ((await run(['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).code === 0) {
    return 'a merge is in progress in the workspace; finish or abort it first';
  }
  if (!(await currentBranch(root, ctx))) {
    return 'the workspace is not on a branch (detached HEAD); check out the branch to merge into first';
  }
  return null;
}

export type LandResult =
  | { kind: 'landed' }
  /** The workspace cannot be updated now; the entry waits with this reason. */
  | { kind: 'wait'; reason: string }
  /** The branch moved (a commit, another branch checked out): merge and test again. */
  | { kind: 'moved' };

/**
 * Advances branch `into` from `base` to `commit` and brings the user's files along, only if
 * `into` is still checked out at `base` and nothing of the user's is in the way.
 */
export async function land(root: string, into: string, base: string, commit: string, ctx: GitEnvOptions): Promise<LandResult> {
  const busy = await repoBusy(root, ctx);
  if (busy) return { kind: 'wait', reason: busy };
  if ((await currentBranch(root, ctx)) !== into || (await resolveCommit(root, `refs/heads/${into}`, ctx)) !== base) return { kind: 'moved' };
  const top = (await git(['rev-parse', '--show-toplevel'], { ...ctx, cwd: root })).stdout.trim();
  const dirty = await dirtyFiles(top, ctx, false);
  if (dirty.length) {
    return { kind: 'wait', reason: `the workspace has uncommitted changes (${fileList(dirty)}); it lands by itself once they are committed or stashed` };
  }
  // Untracked files the merge would create: read-tree would refuse to overwrite them.
  const added = splitZ((await git(['diff', '--name-only', '--diff-filter=A', '-z', base, commit, '--'], { ...ctx, cwd: top })).stdout);
  const inWay: string[] = [];
  for (const f of added) if (await lstat(join(top, f)).then(() => true, () => false)) inWay.push(f);
  if (inWay.length) {
    return { kind: 'wait', reason: `untracked files in the workspace are in the way of the merge (${fileList(inWay)}); it lands by itself once they are moved away` };
  }
  const moved = await git(['update-ref', '-m', 'agent-teams merge queue', `refs/heads/${into}`, commit, base], { ...ctx, cwd: top, allowFail: true });
  if (moved.code !== 0) return { kind: 'moved' };
  await syncTree(top, base, commit, ctx);
  return { kind: 'landed' };
}

/**
 * Brings index and files from `base` to `commit` after the ref moved. Also what recovery runs
 * when a host died between the two steps (the index still matches `base`).
 */
export async function syncTree(top: string, base: string, commit: string, ctx: GitEnvOptions): Promise<void> {
  const r = await git(['read-tree', '-m', '-u', base, commit], { ...ctx, cwd: top, allowFail: true });
  if (r.code !== 0) throw new WorktreeError('merge-failed', `the branch advanced to ${commit.slice(0, 12)} but the files could not be brought along (${firstLines(r.stderr)}); run "git read-tree -m -u ${base} ${commit}" in the workspace`);
}

/** Whether the index still holds `commit`'s tree (the files were not brought along yet). */
export async function indexAt(top: string, commit: string, ctx: GitEnvOptions): Promise<boolean> {
  return (await git(['diff-index', '--cached', '--quiet', commit, '--'], { ...ctx, cwd: top, allowFail: true })).code === 0;
}
