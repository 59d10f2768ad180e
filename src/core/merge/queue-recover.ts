// What the merge queue does with an entry whose worker went away mid-entry (docs/file-formats.md,
// "Merge queue", Restarts). Until the branch ref moved nothing of the user's changed: the entry
// is simply queued again. After it moved, the entry is merged, and the files are brought along
// if the host died before doing so.
import type { MergeEntry } from '../../shared/merge-queue-schema';
import type { GitEnvOptions } from '../worktree/git';
import { repoInfo, resolveCommit } from '../worktree/repo';
import { changedFiles, indexAt, syncTree } from './integrate';
import { nowSeconds } from './queue-store';

/** Settles `e` in place (merged, or queued again); true when it is queued again. */
export async function recoverEntry(root: string, e: MergeEntry, git: GitEnvOptions): Promise<boolean> {
  const landed = e.commit && e.into && e.base && (await resolveCommit(root, `refs/heads/${e.into}`, git)) === e.commit;
  if (landed) {
    const top = (await repoInfo(root, git)).toplevel;
    if (await indexAt(top, e.base!, git)) await syncTree(top, e.base!, e.commit!, git).catch(() => undefined);
    // An entry with a test has its file list written when it settles: asked now if the host died first.
    if (!e.files?.length) e.files = (await changedFiles(top, e.base!, e.commit!, git).catch(() => null))?.files;
    Object.assign(e, { state: 'merged', worker: null, scratch: null, waiting: null, updated_at: nowSeconds() });
    return false;
  }
  Object.assign(e, { state: 'queued', worker: null, scratch: null, waiting: null, commit: null, updated_at: nowSeconds() });
  return true;
}
