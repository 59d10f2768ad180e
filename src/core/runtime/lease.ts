// Which host (VS Code window, CLI, test) runs which teammate. A member's `host` record is a
// lease renewed by heartbeat; another host takes a member over only when the lease is
// stale (owner process dead on this machine, or silent for three heartbeats).
import { hostname } from 'node:os';
import type { HostLease, Member } from '../../shared/team-schemas';

export const HEARTBEAT_MS = 5000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function makeLease(hostId: string): HostLease {
  return { id: hostId, pid: process.pid, heartbeat_at: Date.now() / 1000, hostname: hostname() };
}

/** The host id that holds `m` right now, if it is not us and its lease is live. */
export function liveForeignHost(m: Member, myHostId: string, heartbeatMs = HEARTBEAT_MS): string | null {
  return liveForeignLease(m.host, myHostId, heartbeatMs);
}

/** The same for any lease (the lead's lives in the roster's top-level `lead` record). */
export function liveForeignLease(h: HostLease | null | undefined, myHostId: string, heartbeatMs = HEARTBEAT_MS): string | null {
  if (!h || h.id === myHostId) return null;
  if ((h as { hostname?: string }).hostname === hostname() && !alive(h.pid)) return null;
  if (Date.now() / 1000 - h.heartbeat_at > (3 * heartbeatMs) / 1000) return null;
  return h.id;
}
