// The one error type the worktree module throws, so callers (agent tools, commands, CLI)
// can branch on `code` and show `message` as is: every message names what went wrong and
// what to do about it.

export type WorktreeErrorCode =
  | 'invalid-name'
  | 'git-missing'
  | 'not-a-repo'
  | 'git-failed'
  | 'timeout'
  | 'exists'
  | 'branch-taken'
  | 'path-exists'
  | 'bad-base'
  | 'dirty-base'
  | 'not-found'
  | 'no-checkout'
  | 'dirty-worktree'
  | 'ignored-files'
  | 'dirty-main'
  | 'detached-head'
  | 'merge-failed'
  | 'unmerged-commits'
  | 'branch-missing'
  | 'locked'
  | 'unsafe-path';

export class WorktreeError extends Error {
  override readonly name = 'WorktreeError';
  constructor(
    readonly code: WorktreeErrorCode,
    message: string,
    /** Paths involved (dirty files, conflicting files), relative to the repository root. */
    readonly files: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Lists at most a few files in a message; the full list stays on `WorktreeError.files`. */
export function fileList(files: readonly string[], max = 5): string {
  const shown = files.slice(0, max).join(', ');
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}
