// Where a teammate's branch stands against the branch checked out in the main checkout:
// merged (everything on it is there), not merged (how many commits are not), or no commits
// of its own yet; and whether its checkout holds uncommitted work. Read-only: plain git
// queries, no lock (docs/file-formats.md, "Worktrees").
import { git, type GitEnvOptions } from './git';
import { branchExists, currentBranch, dirtyFiles } from './repo';
import type { WorktreeRecord } from './store';

export type MergeState = 'merged' | 'not-merged' | 'no-commits' | 'no-branch';

export interface BranchState {
  merge: MergeState;
  /** The main checkout's branch it is compared with (`HEAD` when detached). */
  into: string;
  /** Commits on the branch that the current branch lacks. */
  ahead: number;
  /** Uncommitted (and untracked) files in its checkout; 0 without one. */
  uncommitted: number;
}

const count = async (root: string, ctx: GitEnvOptions, args: string[]): Promise<number> =>
  Number((await git(['rev-list', '--count', ...args, '--'], { ...ctx, cwd: root })).stdout.trim()) || 0;

export async function branchState(root: string, rec: WorktreeRecord, checkout: string | undefined, ctx: GitEnvOptions): Promise<BranchState> {
  const [has, into, dirty] = await Promise.all([
    branchExists(root, rec.branch, ctx),
    currentBranch(root, ctx).then((b) => b ?? 'HEAD'),
    checkout ? dirtyFiles(checkout, ctx, true) : Promise.resolve([]),
  ]);
  const uncommitted = dirty.length;
  if (!has) return { merge: 'no-branch', into, ahead: 0, uncommitted };
  // The base's own history is not the teammate's work.
  const [ahead, own] = await Promise.all([count(root, ctx, [rec.branch, '^HEAD']), count(root, ctx, [rec.branch, `^${rec.baseCommit}`])]);
  const merge: MergeState = own === 0 ? 'no-commits' : ahead === 0 ? 'merged' : 'not-merged';
  return { merge, into, ahead, uncommitted };
}

/** "merged into main", "not merged into main (2 commits)", "no commits yet"; uncommitted files added. */
export function branchStateWords(s: BranchState): string {
  const merge = s.merge === 'merged' ? `merged into ${s.into}`
    : s.merge === 'not-merged' ? `not merged into ${s.into} (${s.ahead} commit${s.ahead === 1 ? '' : 's'})`
      : s.merge === 'no-commits' ? 'no commits yet' : 'branch gone';
  return s.uncommitted ? `${merge}, ${s.uncommitted} uncommitted file${s.uncommitted === 1 ? '' : 's'}` : merge;
}
