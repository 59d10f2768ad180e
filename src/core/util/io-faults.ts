// A seam for tests to make the team's file IO fail as a full or unreadable disk would
// (ENOSPC on writes, EACCES on reads), without root tricks or a real full filesystem. The
// atomic-write, append, lock and read layers call `ioFault` before touching a file; with
// no hook set (always, outside tests) it costs one comparison.
export type IoOp = 'read' | 'write';
export type IoFaultHook = (op: IoOp, path: string) => string | null;

let hook: IoFaultHook | null = null;

/** Makes IO fail: `hook` returns an errno code (`'ENOSPC'`, `'EACCES'`) or null. Pass null to stop. */
export function setIoFaults(h: IoFaultHook | null): void {
  hook = h;
}

/** Throws the injected error for `op` on `path`, if any. */
export function ioFault(op: IoOp, path: string): void {
  const code = hook?.(op, path);
  if (!code) return;
  const err = new Error(`${code}: injected ${op} fault, ${op === 'read' ? 'open' : 'write'} '${path}'`) as NodeJS.ErrnoException;
  err.code = code;
  err.path = path;
  throw err;
}

/** A disk that is full or a file we may not read: the error codes that mean "wait or skip", not "crash". */
export function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function isUnreadable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EPERM' || code === 'EISDIR' || code === 'EIO';
}
