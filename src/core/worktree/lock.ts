// The worktree index's lock: the project's one file lock (util/file-lock.ts), with a timeout
// reported as a WorktreeError ('locked') that names the process holding it.
import { LockTimeoutError, withFileLock as withLock } from '../util/file-lock';
import { WorktreeError } from './errors';

export interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

export async function withFileLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  try {
    return await withLock(path, fn, { timeoutMs: opts.timeoutMs });
  } catch (err) {
    if (!(err instanceof LockTimeoutError) || err.lockPath !== path) throw err;
    throw new WorktreeError('locked', `worktrees are being changed by another process (pid ${err.holderPid ?? 'unknown'}); lock file ${path}`);
  }
}
