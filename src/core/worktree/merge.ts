// Merging a teammate's branch into the branch checked out in the main checkout, all or
// nothing: every precondition is checked before anything is written, and a conflicted merge
// is aborted so no MERGE_HEAD or conflict marker is ever left for the user to find.
import { WorktreeError, fileList } from './errors';
import { firstLines, git, identityArgs, splitZ, type GitEnvOptions } from './git';
import { branchExists, commitAll, currentBranch, dirtyFiles, refuseDirty } from './repo';
import type { WorktreeRecord } from './store';

export type MergeResult =
  | { status: 'merged'; into: string; commit: string; files: string[]; pendingCommit?: string }
  | { status: 'up-to-date'; into: string; pendingCommit?: string }
  | { status: 'conflict'; into: string; files: string[]; pendingCommit?: string };

export interface MergeOptions {
  /** Commit the worktree's uncommitted changes with this message first; without it they refuse the merge. */
  commitMessage?: string;
}

/** Called once every precondition holds, just before the first write. */
export type BeforeWrite = () => Promise<void>;

export async function mergeRecord(
  root: string, rec: WorktreeRecord, checkout: string | undefined, opts: MergeOptions, ctx: GitEnvOptions,
  beforeWrite: BeforeWrite,
): Promise<MergeResult> {
  const run = (args: string[], cwd = root) => git(args, { ...ctx, cwd, allowFail: true });
  // Independent read-only probes run together; their verdicts are still checked in order.
  const [hasBranch, into, merging, mainDirty, pending, identity] = await Promise.all([
    branchExists(root, rec.branch, ctx),
    currentBranch(root, ctx),
    run(['rev-parse', '--quiet', '--verify', 'MERGE_HEAD']).then((r) => r.code === 0),
    dirtyFiles(root, ctx, false),
    checkout ? dirtyFiles(checkout, ctx, true) : Promise.resolve([]),
    identityArgs(root, ctx),
  ]);
  if (!hasBranch) throw new WorktreeError('branch-missing', `branch ${rec.branch} of worktree "${rec.name}" no longer exists`);
  if (!into) throw new WorktreeError('detached-head', 'the main checkout is not on a branch (detached HEAD); check out the branch to merge into first');
  if (into === rec.branch) throw new WorktreeError('merge-failed', `the main checkout has ${rec.branch} itself checked out`);
  if (merging) throw new WorktreeError('dirty-main', 'a merge is already in progress in the main checkout; finish or abort it first');
  // Simplest rule that can never lose the user's edits: any tracked change in the main
  // checkout refuses the merge, whether or not the merge would touch that file.
  refuseDirty('dirty-main', mainDirty, 'the main checkout', 'commit or stash them before merging');
  if (pending.length && !opts.commitMessage) {
    refuseDirty('dirty-worktree', pending, `worktree "${rec.name}"`, 'commit them first, or pass a commit message to merge them too');
  }

  await beforeWrite();
  const pendingCommit = pending.length && checkout ? await commitAll(checkout, opts.commitMessage ?? '', ctx) : undefined;
  const withPending = pendingCommit ? { pendingCommit } : {};
  if ((await run(['merge-base', '--is-ancestor', rec.branch, 'HEAD'])).code === 0) {
    return { status: 'up-to-date', into, ...withPending };
  }

  const message = `Merge ${rec.branch} (teammate ${rec.name}) into ${into}`;
  // --no-ff: one merge commit per teammate hand-in, revertible as a unit (`git revert -m 1`).
  const merged = await run([...identity, 'merge', '--no-ff', '--no-edit', '-m', message, rec.branch]).catch(async (err: unknown) => {
    await abortMerge(root, ctx); // a git stopped by the timeout may have left MERGE_HEAD
    throw err;
  });
  if (merged.code === 0) {
    const [head, names] = await Promise.all([
      git(['rev-parse', 'HEAD'], { ...ctx, cwd: root }),
      git(['diff', '--name-only', '-z', 'HEAD^1', 'HEAD', '--'], { ...ctx, cwd: root }),
    ]);
    const commit = head.stdout.trim();
    const files = splitZ(names.stdout);
    return { status: 'merged', into, commit, files, ...withPending };
  }
  const conflicts = splitZ((await run(['diff', '--name-only', '--diff-filter=U', '-z'])).stdout);
  await abortMerge(root, ctx);
  if (conflicts.length) return { status: 'conflict', into, files: conflicts, ...withPending };
  // Refused before starting (e.g. untracked files in the way): git changed nothing.
  throw new WorktreeError('merge-failed', `merging ${rec.branch} into ${into} failed: ${firstLines(merged.stderr || merged.stdout, 6)}`);
}

/** Puts the main checkout back exactly as before the merge; verifies it did. */
async function abortMerge(root: string, ctx: GitEnvOptions): Promise<void> {
  const run = (args: string[]) => git(args, { ...ctx, cwd: root, allowFail: true });
  if ((await run(['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).code !== 0) return;
  if ((await run(['merge', '--abort'])).code !== 0) await run(['reset', '--merge']);
  const left = await dirtyFiles(root, ctx, false);
  if ((await run(['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).code === 0 || left.length) {
    throw new WorktreeError('merge-failed', `could not undo the conflicted merge; the main checkout needs attention (${fileList(left)})`, left);
  }
}
