// Which host (VS Code window, CLI, test) runs which teammate, and the lead. A member's `host`
// record (the lead's in the roster's top-level `lead` record) is a lease renewed by
// heartbeat; another host takes it over only when the lease is stale (owner process dead on
// this machine, or silent for three heartbeats).
import { hostname } from 'node:os';
import type { HostLease, LeadRecord, Member, TeamConfig } from '../../shared/schemas';
import { isProcessAlive } from '../util/process-alive';

export const HEARTBEAT_MS = 5000;

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
  if (h.hostname === hostname() && !isProcessAlive(h.pid)) return null;
  if (Date.now() / 1000 - h.heartbeat_at > (3 * heartbeatMs) / 1000) return null;
  return h.id;
}

// ── lease changes, each applied to the roster inside one locked `roster.update` ──

/** The roster's top-level `lead` record (usage and lease), created when absent. */
export function leadRecord(c: TeamConfig): LeadRecord {
  c.lead ??= {};
  return c.lead;
}

/** What taking `name`'s lease found: the member (now ours), the live host that has it, or nothing to run. */
export type Claim = { member: Member } | { foreign: string } | null;

/** Takes `name`'s lease unless another live host holds it (check and take in one update). */
export function claimMember(c: TeamConfig, name: string, hostId: string, heartbeatMs?: number): Claim {
  const m = c.members.find((x) => x.name === name);
  if (!m || m.status === 'shutdown') return null;
  const foreign = liveForeignHost(m, hostId, heartbeatMs);
  if (foreign) return { foreign };
  m.host = makeLease(hostId);
  return { member: { ...m } };
}

/** Takes the lead's lease unless another live host holds it; returns that host. */
export function claimLeadLease(c: TeamConfig, hostId: string, heartbeatMs?: number): string | null {
  const rec = leadRecord(c);
  const foreign = liveForeignLease(rec.host, hostId, heartbeatMs);
  if (!foreign) rec.host = makeLease(hostId);
  return foreign;
}

/**
 * Take Over Lead: takes the lead's lease whoever holds it (the user says that window is gone,
 * though its backend still renews). Returns the host it was taken from. That host stops its
 * lead at its next renewal (renewLeases: leadLostTo), and the fence the taker opens refuses
 * its transcript writes until then.
 */
export function takeLeadLease(c: TeamConfig, hostId: string): string | null {
  const rec = leadRecord(c);
  const from = rec.host && rec.host.id !== hostId ? rec.host.id : null;
  rec.host = makeLease(hostId);
  return from;
}

export interface Renewal {
  /** Members another host took over (ours looked stale to it: this process was frozen). */
  lost: Array<{ name: string; host: string }>;
  /** The host that took the lead over, if it did. */
  leadLostTo: string | null;
}

/** The heartbeat: renews the leases `hostId` holds on `mine` (and the lead's), and says which it lost. */
export function renewLeases(c: TeamConfig, hostId: string, mine: readonly string[], holdLead: boolean): Renewal {
  const out: Renewal = { lost: [], leadLostTo: null };
  if (holdLead) {
    const rec = leadRecord(c);
    if (!rec.host || rec.host.id === hostId) rec.host = makeLease(hostId);
    else out.leadLostTo = rec.host.id;
  }
  for (const m of c.members) {
    if (!mine.includes(m.name)) continue;
    if (m.host?.id === hostId) m.host = makeLease(hostId);
    else if (m.host && m.status !== 'shutdown') out.lost.push({ name: m.name, host: m.host.id });
  }
  return out;
}

/** Gives up every lease `hostId` holds (the host is going away; the next one need not wait). */
export function releaseLeases(c: TeamConfig, hostId: string): void {
  for (const m of c.members) if (m.host?.id === hostId) m.host = null;
  const rec = leadRecord(c);
  if (rec.host?.id === hostId) rec.host = null;
}

/**
 * When this host last confirmed its leases. Others take a lease over after three silent
 * heartbeats, so after two without a confirmation (the process was stopped, the laptop
 * slept, timers drifted) the host must renew before it acts again. Both clocks are read:
 * the monotonic one keeps counting through SIGSTOP, the wall clock through a suspend.
 */
export class LeaseClock {
  private mono = performance.now();
  private wall = Date.now();

  constructor(private readonly heartbeatMs: number) {}

  confirm(): void {
    this.mono = performance.now();
    this.wall = Date.now();
  }

  /** True while the last confirmation is recent enough to act on without renewing. */
  fresh(): boolean {
    const gap = Math.max(performance.now() - this.mono, Date.now() - this.wall);
    return gap < 2 * this.heartbeatMs;
  }
}
