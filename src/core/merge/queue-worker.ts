// Works the merge queue (docs/file-formats.md, "Merge queue"): takes the first open entry
// under the queue's lock and runs its steps (entry-steps.ts), one entry at a time. A run of
// entries (until none is left) shares one scratch checkout, removed when the run ends. One
// entry at a time across hosts: an entry being worked names its host, which renews a
// heartbeat; one whose host died or went silent is taken back (recover, below).
import { isOpen, type MergeEntry } from '../../shared/schemas/merge-queue';
import { isProcessAlive } from '../util/process-alive';
import { resolveCommit } from '../worktree/repo';
import { attempt, fail, POLL_MS, type QueueRun } from './entry-steps';
import { changedFiles } from './integrate';
import type { WorkerOptions } from './queue-options';
import { nowSeconds } from './queue-store';
import { ScratchCheckout } from './scratch';

/** A worker silent this long has gone away (heartbeats every HEARTBEAT_MS). */
const STALE_S = 30;
const HEARTBEAT_MS = 5_000;
/** Attempts of one entry whose base moved under each (merged and tested again onto the new tip) before it fails. */
const MAX_ATTEMPTS = 5;

export class QueueWorker {
  private loop: Promise<void> | null = null;
  private again = false;
  private disposed = false;
  private current: { id: string; ctl: AbortController } | null = null;
  private readonly poll: NodeJS.Timeout;

  constructor(private readonly o: WorkerOptions) {
    // Entries added by other processes (the CLI) and hosts that went away are found by polling.
    this.poll = setInterval(() => this.kick(), POLL_MS);
    this.poll.unref();
  }

  kick(): void {
    if (this.disposed) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    this.loop = (async () => {
      do {
        this.again = false;
        await this.drain().catch((err: Error) => this.o.notify('error', `Merge queue: ${err.message}`));
      } while (this.again && !this.disposed);
    })().finally(() => { this.loop = null; });
  }

  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** `id` was cancelled: a test running for it here stops now. */
  cancelled(id: string): void {
    if (this.current?.id === id) this.current.ctl.abort();
  }

  /** Stops; the entry being worked is handed back at once (not after STALE_S) for the next host to retry. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.poll);
    const cur = this.current;
    cur?.ctl.abort();
    await this.idle();
    if (cur) await this.o.store.mine(cur.id, this.o.hostId, { state: 'queued', worker: null, waiting: null }).catch(() => undefined);
  }

  /** Works entries until none is left; the run's scratch checkout is removed at its end. */
  private async drain(): Promise<void> {
    const run: QueueRun = { scratch: new ScratchCheckout(this.o.worktrees.root), repo: null };
    try {
      for (let e = await this.claim(); e && !this.disposed; e = await this.claim()) await this.work(e, run);
    } finally {
      await run.scratch.release();
    }
  }

  /** Under the lock: takes back entries of workers that went away, then takes the first open one. */
  private async claim(): Promise<MergeEntry | null> {
    return this.o.store.update(async (entries) => {
      for (const e of entries) {
        if (e.state !== 'testing' || !gone(e, this.o.hostId, this.current?.id)) continue;
        if (await recover(this.o.worktrees.root, e)) this.o.notify('info', `Merge queue: ${e.teammate}'s entry was being worked by a host that went away; it is tried again.`, e.teammate);
      }
      const first = entries.find(isOpen);
      if (!first || first.state === 'testing') return null;
      Object.assign(first, { state: 'testing', worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() }, updated_at: nowSeconds(), waiting: null, reason: null, commit: null });
      return { ...first };
    });
  }

  /** The entry's attempts (the branch may move meanwhile: merged and tested again onto the new tip), under a heartbeat. */
  private async work(e: MergeEntry, run: QueueRun): Promise<void> {
    const ctl = new AbortController();
    this.current = { id: e.id, ctl };
    const c = { w: this.o, run, e, signal: ctl.signal };
    const beat = setInterval(() => {
      void this.o.store.mine(e.id, this.o.hostId, { worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() } })
        .then((still) => { if (!still) ctl.abort(); }, () => undefined);
    }, HEARTBEAT_MS);
    try {
      for (let n = 0; n < MAX_ATTEMPTS; n++) if (ctl.signal.aborted || (await attempt(c)) === 'done') return;
      await fail(c, 'could not be merged: the workspace branch kept moving meanwhile; retry it', { failure: { step: 'merge', fault: 'environment', why: 'the workspace branch moved under every attempt' } });
    } catch (err) {
      const failure = { step: 'merge' as const, fault: 'environment' as const, why: 'git or the queue itself failed, not the branch' };
      await fail(c, `could not be merged: ${(err as Error).message}`, { failure }).catch(() => undefined);
    } finally {
      clearInterval(beat);
      this.current = null;
    }
  }
}

/** Whether the worker of testing entry `e` went away (this host's own: when it is not the entry it works). */
function gone(e: MergeEntry, host: string, working: string | undefined): boolean {
  const w = e.worker;
  if (!w) return true;
  if (w.host === host) return working !== e.id;
  return !isProcessAlive(w.pid) || nowSeconds() - w.heartbeat_at > STALE_S;
}

/**
 * Settles the entry of a worker that went away, in place; true when it is queued again. Until
 * the branch ref moved nothing of the user's changed: queued again. A fast-forward brings the
 * files along before it moves the ref, so an entry whose branch is at its commit landed whole.
 */
async function recover(root: string, e: MergeEntry): Promise<boolean> {
  const landed = e.commit && e.into && e.base && (await resolveCommit(root, `refs/heads/${e.into}`, {})) === e.commit;
  Object.assign(e, { worker: null, waiting: null, updated_at: nowSeconds() });
  if (!landed) {
    Object.assign(e, { state: 'queued', commit: null });
    return true;
  }
  e.state = 'merged';
  if (!e.files?.length) e.files = (await changedFiles(root, e.base!, e.commit!).catch(() => undefined))?.map((x) => x.path);
  return false;
}
