// Killing whole process groups, and remembering which groups belong to whom.
// Commands run as the leader of their own group (spawned detached), so one signal
// to -pgid reaches background jobs and grandchildren that a plain child.kill()
// would orphan.

/** How long a group gets to exit on SIGTERM before it is sent SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 500;

/** How often a terminating group is checked for members during the grace period. */
const POLL_MS = 25;

/** Sends `sig` (0 = only probe) to group `pgid`; false if the group is already gone. */
export function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false; // ESRCH: nobody left; EPERM cannot happen for our own children
  }
}

/**
 * SIGTERM to the group now; SIGKILL once `graceMs` have passed with members left.
 * Settles when the group is empty or SIGKILL has gone out. Zombies count as
 * members, so under a container init that never reaps orphans the full grace is
 * spent before SIGKILL; with a reaping init a prompt exit ends the wait early.
 */
export function killGroup(pgid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return Promise.resolve();
  const deadline = performance.now() + graceMs;
  return new Promise((resolve) => {
    const poll = () => {
      if (!signalGroup(pgid, 0)) return resolve();
      const left = deadline - performance.now();
      if (left <= 0) {
        signalGroup(pgid, 'SIGKILL');
        return resolve();
      }
      setTimeout(poll, Math.min(POLL_MS, left));
    };
    setTimeout(poll, Math.min(POLL_MS, graceMs));
  });
}

/** A running command as the registry sees it. */
export interface TrackedProcess {
  readonly command: string;
  /** Kills the process group; resolves once the command has finished. */
  stop(): Promise<void>;
}

/** Where a host writes down the groups it starts (process-ledger.ts), for whoever outlives it. */
export interface GroupLedger {
  /** Records group `pgid` just spawned for `owner`; the returned function drops the record. */
  record(owner: string, pgid: number, command: string, kind: 'bash' | 'job'): () => Promise<void>;
}

/**
 * Live process groups per owner (a teammate's name), so a force stop can kill
 * every command that teammate started, and deactivation can kill everything.
 */
export class ProcessRegistry {
  private readonly byOwner = new Map<string, Set<TrackedProcess>>();

  /** @param ledger records each group in the team folder while it runs (none: nothing recorded). */
  constructor(private readonly ledger?: GroupLedger) {}

  /**
   * Writes group `pgid` down as `owner`'s (so a host taking over after this one is killed can
   * kill it); call the returned function once the group is gone.
   */
  recordGroup(owner: string, pgid: number | undefined, command: string, kind: 'bash' | 'job'): () => Promise<void> {
    if (!this.ledger || pgid === undefined) return async () => undefined;
    return this.ledger.record(owner, pgid, command, kind);
  }

  /** Registers `proc`; call the returned function when it has finished. */
  track(owner: string, proc: TrackedProcess): () => void {
    let set = this.byOwner.get(owner);
    if (!set) this.byOwner.set(owner, (set = new Set()));
    set.add(proc);
    return () => {
      const s = this.byOwner.get(owner);
      if (!s) return;
      s.delete(proc);
      if (s.size === 0) this.byOwner.delete(owner);
    };
  }

  /** Commands currently running for `owner` (or for everyone). */
  list(owner?: string): TrackedProcess[] {
    if (owner !== undefined) return [...(this.byOwner.get(owner) ?? [])];
    return [...this.byOwner.values()].flatMap((s) => [...s]);
  }

  /** Kills all of `owner`'s commands; resolves with how many once all have finished. */
  async killAll(owner: string): Promise<number> {
    return stopAll(this.list(owner));
  }

  /** Kills every tracked command (extension deactivation, team shutdown). */
  async killEverything(): Promise<number> {
    return stopAll(this.list());
  }
}

async function stopAll(procs: TrackedProcess[]): Promise<number> {
  await Promise.all(procs.map((p) => p.stop()));
  return procs.length;
}
