// Whether a process on this machine still runs: the one liveness check behind stale lock
// files and stale host leases. EPERM means it runs under another user, so it is alive.
// And what /proc says of a process (Linux): its state, group and start time.
import { readFile } from 'node:fs/promises';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ProcStat {
  /** Field 3: R, S, D, Z, T (stopped), t (stopped by a tracer), … */
  state: string;
  /** Field 5: its process group. */
  pgrp: number;
  /** Field 22: start time after boot in clock ticks, as text (compared, never counted). */
  start: string;
}

/** Fields 3, 5 and 22 of /proc/<pid>/stat; null when the process is gone or there is no /proc. */
export async function procStat(pid: number): Promise<ProcStat | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!text) return null;
  // Field 2 (the command name, in parentheses) may hold spaces and ')': count from the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3, so field n is rest[n - 3].
  const pgrp = Number(rest[2]);
  const start = rest[19];
  return rest[0] && Number.isInteger(pgrp) && start ? { state: rest[0], pgrp, start } : null;
}
