// What the merge queue does with an entry whose worker went away mid-entry (docs/file-formats.md,
// "Merge queue", Restarts). Until the branch ref moved nothing of the user's changed: the entry
// is queued again. A fast-forward brings the files along before it moves the ref, so an entry
// whose branch is at its commit has landed whole: it is written merged.
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { GitEnvOptions } from '../worktree/git';
import { resolveCommit } from '../worktree/repo';
import { changedFiles } from './integrate';
import { nowSeconds } from './queue-store';

/** Settles `e` in place (merged, or queued again); true when it is queued again. */
export async function recoverEntry(root: string, e: MergeEntry, git: GitEnvOptions): Promise<boolean> {
  const landed = e.commit && e.into && e.base && (await resolveCommit(root, `refs/heads/${e.into}`, git)) === e.commit;
  if (landed) {
    if (!e.files?.length) e.files = (await changedFiles(root, e.base!, e.commit!, git).catch(() => null))?.files;
    Object.assign(e, { state: 'merged', worker: null, scratch: null, waiting: null, updated_at: nowSeconds() });
    return false;
  }
  Object.assign(e, { state: 'queued', worker: null, scratch: null, waiting: null, commit: null, updated_at: nowSeconds() });
  return true;
}
