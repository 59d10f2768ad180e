// Works the merge queue (docs/file-formats.md, "Merge queue"): takes the first open entry
// under the queue's lock and runs its steps (entry-steps.ts), one entry at a time. A run of
// entries (until none is left) shares one scratch checkout, removed when the run ends. One
// entry at a time across hosts: an entry being worked names its host, which renews a
// heartbeat; one whose host died or went silent is retried, or finished if its branch had
// moved (queue-recover.ts).
import { isOpen, type MergeEntry } from '../../shared/schemas/merge-queue';
import { DEFAULT_SANDBOX } from '../../shared/sandbox-schemas';
import { CommandSandbox } from '../sandbox/sandbox';
import { isProcessAlive } from '../util/process-alive';
import { attempt, fail, type QueueRun } from './entry-steps';
import { commitFacts, repoPaths } from './integrate';
import type { WorkerOptions } from './queue-options';
import { recoverEntry } from './queue-recover';
import { nowSeconds } from './queue-store';
import type { TestSandbox } from './queue-test';
import { removeScratch, ScratchCheckout } from './scratch';

/** A worker silent this long has gone away (heartbeats every HEARTBEAT_MS). */
const STALE_S = 30;
const HEARTBEAT_MS = 5_000;

export class QueueWorker {
  private loop: Promise<void> | null = null;
  private again = false;
  private disposed = false;
  private current: { id: string; ctl: AbortController } | null = null;
  private readonly poll: NodeJS.Timeout;
  /** Where the tests run: the host's sandbox, else one of this worker's own over the queue's settings. */
  private readonly tests: TestSandbox;
  private readonly own: CommandSandbox | null;

  constructor(private readonly o: WorkerOptions) {
    this.own = o.sandbox ? null : new CommandSandbox({
      root: o.worktrees.root, settings: () => o.settings().sandbox ?? DEFAULT_SANDBOX, rules: () => o.settings().permissions, notice: o.notify,
    });
    this.tests = o.sandbox ?? this.own!;
    // Entries added by other processes (the CLI) and hosts that went away are found by polling.
    this.poll = setInterval(() => this.kick(), o.pollMs ?? 2_000);
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

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.poll);
    const cur = this.current;
    cur?.ctl.abort();
    await this.idle();
    await this.own?.dispose();
    // Handed back at once rather than after STALE_S: the next host retries it.
    if (cur) {
      await this.o.store.update((entries) => {
        const e = entries.find((x) => x.id === cur.id);
        if (e?.state === 'testing' && e.worker?.host === this.o.hostId) Object.assign(e, { state: 'queued', worker: null, waiting: null, updated_at: nowSeconds() });
      }).catch(() => undefined);
    }
  }

  /** Works entries until none is left; the run's scratch checkout is removed at its end. */
  private async drain(): Promise<void> {
    const scratch = new ScratchCheckout(this.o.worktrees.root, this.o.git);
    let repo: ReturnType<QueueRun['repo']> | null = null;
    // The repository's paths and commit settings, asked at the run's first entry (a failure: asked again at the next).
    const run: QueueRun = {
      scratch, tests: this.tests, prep: null,
      repo: () => (repo ??= repoPaths(this.o.worktrees.root, this.o.git).then(async (p) => ({ p, facts: await commitFacts(p.top, this.o.git) })))
        .catch((err: Error) => { repo = null; throw err; }),
    };
    try {
      for (let e = await this.claim(scratch); e && !this.disposed; e = await this.claim(scratch)) await this.work(e, run);
    } finally {
      await scratch.release();
    }
  }

  /** Under the lock: recovers entries of workers that went away, then takes the first open one. */
  private async claim(scratch: ScratchCheckout): Promise<MergeEntry | null> {
    const litter: string[] = [];
    const picked = await this.o.store.update(async (entries) => {
      for (const e of entries) {
        if (e.state !== 'testing' || !gone(e, this.o.hostId, this.current?.id)) continue;
        if (e.scratch) litter.push(e.scratch);
        if (await recoverEntry(this.o.worktrees.root, e, this.o.git)) this.o.notify('info', `Merge queue: ${e.teammate}'s entry was being worked by a host that went away; it is tried again.`, e.teammate);
      }
      const first = entries.find(isOpen);
      if (!first || first.state === 'testing') return null;
      Object.assign(first, { state: 'testing', worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() }, updated_at: nowSeconds(), waiting: null, reason: null, commit: null });
      return { ...first };
    });
    for (const s of litter) if (!scratch.owns(s)) await removeScratch(this.o.worktrees.root, s, this.o.git);
    return picked;
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
      let moves = 0;
      while (!ctl.signal.aborted && !this.disposed) {
        const step = await attempt(c);
        if (step === 'done') return;
        if (step === 'again' && ++moves >= 5) break;
      }
      if (!ctl.signal.aborted && !this.disposed) await fail(c, 'could not be merged: the workspace branch kept moving meanwhile; retry it', { failure: { step: 'merge', fault: 'environment', why: 'the workspace branch moved under every attempt' } });
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
