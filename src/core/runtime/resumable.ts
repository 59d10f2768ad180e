// Whether a member found in the roster may be run again here: a teammate with a worktree
// resumes only in its own checkout, and only while that checkout exists.
import { realpath } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Member } from '../../shared/schemas';
import { isInside } from '../exec/confine';
import { exists } from '../worktree/context';

export interface NotResumable {
  level: 'error' | 'warning';
  message: string;
}

/** Why `m` is not to be resumed (it is then retired, and the user told), or null. */
export async function whyNotResumable(m: Member, ownWorktree: string, root: string): Promise<NotResumable | null> {
  if (!m.worktree) return null;
  // Only its own checkout: a roster edited to point elsewhere must not become a file-tool root.
  if (!isInside(ownWorktree, resolve(m.worktree))) {
    return { level: 'error', message: `not resumed: its working folder in .team/config.json (${m.worktree}) is not its own worktree.` };
  }
  // Removed by hand or by another tool: its tools would be rooted in a missing folder.
  if (!(await exists(m.worktree))) {
    const where = relative(root, m.worktree) || m.worktree;
    return {
      level: 'warning',
      message: `not resumed: its worktree ${where} is gone${m.branch ? ` (branch ${m.branch} is untouched)` : ''}. Spawn it again to continue.`,
    };
  }
  // A `.worktrees` replaced by a symbolic link since: the checkout now lies outside the workspace.
  const [real, realRoot] = await Promise.all([realpath(m.worktree), realpath(root)]);
  if (!isInside(realRoot, real)) {
    return { level: 'error', message: `not resumed: its worktree ${m.worktree} lies outside the workspace (a symbolic link on the way); remove the link and spawn it again.` };
  }
  return null;
}
