// Whether a process on this machine still runs: the one liveness check behind stale lock
// files and stale host leases. EPERM means it runs under another user, so it is alive.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
