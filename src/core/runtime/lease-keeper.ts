// The leases of one host: which teammates (and whether the lead) this host runs, taken and
// renewed in locked roster updates, and the heartbeat that renews them. The lease rules
// themselves (when a lease is live, how a claim or renewal changes the roster) are in
// lease.ts; the agent runner decides what to do with what the keeper finds.
import type { Member } from '../../shared/schemas';
import type { Roster } from '../team/roster';
import {
  claimLeadLease, claimMember, leadRecord, takeLeadLease, HEARTBEAT_MS, LeaseClock, liveForeignHost, makeLease, releaseLeases, renewLeases,
  type Claim, type Renewal,
} from './lease';
import type { TeamConfig } from '../../shared/schemas';

export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  /** A heartbeat under way: a slow one (a contended roster lock) must not overlap the next. */
  private beating = false;

  /** When the leases were last known to be held (a gap means this host was paused). */
  readonly clock: LeaseClock;

  /**
   * The model this host runs the lead with (and teammates without their own): kept in the
   * roster's `lead` record while this host holds the lead, so `agent-teams team` can say it.
   */
  leadModel: () => string | undefined = () => undefined;

  constructor(private readonly roster: Roster, readonly hostId: string, readonly heartbeatMs = HEARTBEAT_MS) {
    this.clock = new LeaseClock(heartbeatMs);
  }

  private noteModel(c: TeamConfig): void {
    const model = this.leadModel();
    const rec = leadRecord(c);
    if (model && rec.host?.id === this.hostId) rec.model = model;
  }

  /** A fresh lease record of this host. */
  lease() {
    return makeLease(this.hostId);
  }

  /** The live host other than this one that runs `m`, if any. */
  foreign(m: Member): string | null {
    return liveForeignHost(m, this.hostId, this.heartbeatMs);
  }

  /** Takes the lead's lease unless another live host holds it; returns that host. */
  claimLead(): Promise<string | null> {
    return this.roster.update((c) => {
      const foreign = claimLeadLease(c, this.hostId, this.heartbeatMs);
      this.noteModel(c);
      return foreign;
    });
  }

  /** Takes the lead's lease whoever holds it (Take Over Lead); returns the host it was taken from. */
  takeLead(): Promise<string | null> {
    return this.roster.update((c) => {
      const from = takeLeadLease(c, this.hostId);
      this.noteModel(c);
      return from;
    });
  }

  /** Takes `name`'s lease in one locked roster update, so two hosts starting together never both run it. */
  claim(name: string): Promise<Claim> {
    return this.roster.update((c) => claimMember(c, name, this.hostId, this.heartbeatMs));
  }

  /** Renews the leases on `mine` (and the lead's); undefined when the roster could not be updated. */
  renew(mine: readonly string[], holdLead: boolean): Promise<Renewal | undefined> {
    return this.roster.update((c) => {
      const renewal = renewLeases(c, this.hostId, mine, holdLead);
      if (holdLead) this.noteModel(c);
      return renewal;
    }).catch(() => undefined);
  }

  /** Gives up every lease this host holds (it is going away; the next host need not wait). */
  async release(): Promise<void> {
    await this.roster.update((c) => releaseLeases(c, this.hostId)).catch(() => undefined);
  }

  /** Runs `beat` every heartbeat until stopped; beats never overlap. */
  start(beat: () => Promise<void>): void {
    this.timer = setInterval(() => {
      if (this.beating) return;
      this.beating = true;
      void beat().finally(() => { this.beating = false; });
    }, this.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
