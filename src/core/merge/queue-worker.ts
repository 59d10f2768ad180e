// Works the merge queue (docs/file-formats.md, "Merge queue"): takes the first open entry
// under the queue's lock, makes the merge commit (integrate.ts), runs its test command in a
// scratch checkout of it with the shell `bash` uses (process group, timeout, output cap; the same sandbox once there is one),
// and lands it only if the test passed. One entry at a time across hosts: an entry being worked
// names its host, which renews a heartbeat; one whose host died or went silent is retried
// (its scratch checkout removed), or — if the host died between moving the branch and the
// files — finished.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MergeEntry } from '../../shared/merge-queue-schema';
import { isOpen } from '../../shared/merge-queue-schema';
import { runShell } from '../exec/shell';
import type { ProcessRegistry } from '../exec/process-group';
import { isProcessAlive } from '../util/process-alive';
import { fileList } from '../worktree/errors';
import { identityArgs, type GitEnvOptions } from '../worktree/git';
import { repoInfo, resolveCommit } from '../worktree/repo';
import {
  headState, indexAt, land, mergeCommit, removeScratch, repoPaths, scratchCheckout, syncTree, type HeadState, type RepoPaths,
} from './integrate';
import type { MergeQueueOptions } from './queue-options';
import { nowSeconds, type QueueStore } from './queue-store';
import { tellFailed, tellMerged } from './queue-notes';

/** A worker silent this long has gone away (heartbeats every HEARTBEAT_MS). */
const STALE_S = 30;
const HEARTBEAT_MS = 5_000;
const TAIL_LINES = 40;
const TAIL_CHARS = 4_000;

export interface WorkerOptions extends MergeQueueOptions {
  store: QueueStore;
  git: GitEnvOptions;
  processes?: ProcessRegistry;
  notify: (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;
}

/** done: the entry is settled; again: the branch moved, merge anew; wait: the workspace cannot take it yet. */
type Step = 'done' | 'again' | 'wait';

export class QueueWorker {
  private loop: Promise<void> | null = null;
  private again = false;
  private disposed = false;
  private current: { id: string; ctl: AbortController } | null = null;
  private readonly poll: NodeJS.Timeout;
  private repo: Promise<RepoPaths> | null = null;
  private identity: string[] | null = null;
  private scratch: string | null = null;
  private scratches = 0;
  /** The workspace branch as this worker left it after a landing (saves a git call per entry). */
  private known: HeadState | null = null;

  constructor(private readonly o: WorkerOptions) {
    // Entries added by other processes (the CLI) and hosts that went away are found by polling.
    this.poll = setInterval(() => this.kick(), o.pollMs ?? 2_000);
    this.poll.unref();
  }

  private get root(): string {
    return this.o.worktrees.root;
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
    // Handed back at once rather than after STALE_S: the next host retries it.
    if (cur) {
      await this.o.store.update((entries) => {
        const e = entries.find((x) => x.id === cur.id);
        if (e?.state === 'testing' && e.worker?.host === this.o.hostId) Object.assign(e, { state: 'queued', worker: null, waiting: null, updated_at: nowSeconds() });
      }).catch(() => undefined);
    }
  }

  private async drain(): Promise<void> {
    try {
      while (!this.disposed) {
        const e = await this.claimNext();
        if (!e) return;
        await this.work(e);
      }
    } finally {
      this.known = null;
      const dir = this.scratch;
      this.scratch = null;
      if (dir) await removeScratch(this.root, dir, this.o.git);
    }
  }

  private gone(e: MergeEntry): boolean {
    const w = e.worker;
    if (!w) return true;
    if (w.host === this.o.hostId) return this.current?.id !== e.id;
    return !isProcessAlive(w.pid) || nowSeconds() - w.heartbeat_at > STALE_S;
  }

  /** Under the lock: recovers entries of workers that went away, then takes the first open one. */
  private async claimNext(): Promise<MergeEntry | null> {
    const litter: string[] = [];
    const picked = await this.o.store.update(async (entries) => {
      for (const e of entries) {
        if (e.state !== 'testing' || !this.gone(e)) continue;
        if (e.scratch) litter.push(e.scratch);
        await this.recover(e);
      }
      const first = entries.find(isOpen);
      if (!first || first.state === 'testing') return null;
      Object.assign(first, {
        state: 'testing', worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() }, updated_at: nowSeconds(), waiting: null, reason: null,
      });
      return { ...first };
    });
    for (const s of litter) await removeScratch(this.root, s, this.o.git);
    return picked;
  }

  // A host died mid-entry. Until the branch ref moved nothing of the user's changed: the entry
  // is simply queued again. After it moved, the entry is merged, and the files are brought along
  // if the host died before doing so.
  private async recover(e: MergeEntry): Promise<void> {
    const landed = e.commit && e.into && e.base && (await resolveCommit(this.root, `refs/heads/${e.into}`, this.o.git)) === e.commit;
    if (landed) {
      const top = (await repoInfo(this.root, this.o.git)).toplevel;
      if (await indexAt(top, e.base!, this.o.git)) await syncTree(top, e.base!, e.commit!, this.o.git).catch(() => undefined);
      Object.assign(e, { state: 'merged', worker: null, scratch: null, waiting: null, updated_at: nowSeconds() });
      return;
    }
    Object.assign(e, { state: 'queued', worker: null, scratch: null, waiting: null, commit: null, updated_at: nowSeconds() });
    this.o.notify('info', `Merge queue: ${e.teammate}'s entry was being worked by a host that went away; it is tried again.`, e.teammate);
  }

  /** Writes `change` while the entry is still ours and testing; returns false when it is not (cancelled). */
  private async mine(id: string, change: Partial<MergeEntry>): Promise<boolean> {
    return this.o.store.update((entries) => {
      const e = entries.find((x) => x.id === id);
      if (!e || e.state !== 'testing' || e.worker?.host !== this.o.hostId) return false;
      Object.assign(e, change, { updated_at: nowSeconds() });
      return true;
    });
  }

  private async work(e: MergeEntry): Promise<void> {
    const ctl = new AbortController();
    this.current = { id: e.id, ctl };
    const beat = setInterval(() => {
      void this.mine(e.id, { worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() } })
        .then((still) => { if (!still) ctl.abort(); }, () => undefined);
    }, HEARTBEAT_MS);
    try {
      let moves = 0;
      while (!ctl.signal.aborted && !this.disposed) {
        const step = await this.attempt(e, ctl.signal);
        if (step === 'done') return;
        if (step === 'again' && ++moves >= 5) break;
      }
      if (!ctl.signal.aborted && !this.disposed) await this.fail(e, 'could not be merged: the workspace branch kept moving meanwhile; retry it', {});
    } catch (err) {
      await this.fail(e, `could not be merged: ${(err as Error).message}`, {}).catch(() => undefined);
    } finally {
      clearInterval(beat);
      this.current = null;
    }
  }

  /** One merge + test + land against the branch's tip now; 'again' when the branch moved meanwhile. */
  private async attempt(e: MergeEntry, signal: AbortSignal): Promise<Step> {
    const p = await this.paths();
    // Right after a landing this host knows the tip it just made (landWhenClean re-checks anyway).
    const st = this.known ?? (await headState(p, this.o.git));
    this.known = null;
    if (st.busy) return this.waitOut(e, st.busy, signal);
    if (!st.oid) return this.waitOut(e, `branch ${st.branch} has no commit yet`, signal);
    const [into, base] = [st.branch!, st.oid];
    if (!(await this.mine(e.id, { into, base, commit: null, waiting: null }))) return 'done';
    this.identity ??= await identityArgs(p.top, this.o.git);
    const m = await mergeCommit(p.top, base, e.branch, `Merge ${e.branch} (teammate ${e.teammate}) into ${into}`, this.identity, this.o.git);
    if (m.kind === 'nothing') {
      await this.finishMerged(e, { into, commit: base, files: [] }, true);
      return 'done';
    }
    if (m.kind === 'conflict') {
      await this.fail(e, `conflicts with ${into} in ${fileList(m.files)}`, { files: m.files, into });
      return 'done';
    }
    if (e.test_command) {
      const scratch = join(await this.scratchDir(), `${e.id}-${++this.scratches}`);
      if (!(await this.mine(e.id, { scratch }))) return 'done';
      await scratchCheckout(p.top, scratch, m.commit, this.o.git);
      const r = await runShell(e.test_command, {
        cwd: p.subdir ? join(scratch, p.subdir) : scratch, timeoutMs: this.o.testTimeoutMs ?? 600_000, maxOutputBytes: 30_000, signal,
        ...(this.o.processes ? { track: { registry: this.o.processes, owner: e.teammate } } : {}),
      });
      if (signal.aborted) return 'done';
      if (r.exitCode !== 0) {
        const how = r.timedOut ? `timed out after ${Math.round(r.timeoutMs / 1000)} s` : r.error ? `could not start (${r.error})` : r.exitCode !== null ? `exit ${r.exitCode}` : `killed by ${r.signal}`;
        await this.fail(e, `failed the test command \`${e.test_command}\` on the merge (${how})`, { into, output_tail: tail(r.output) });
        return 'done';
      }
    }
    if (!(await this.mine(e.id, { commit: m.commit, files: m.files }))) return 'done';
    return this.landWhenClean(e, p, { into, base, commit: m.commit, files: m.files, added: m.added }, signal);
  }

  private async landWhenClean(e: MergeEntry, p: RepoPaths, m: { into: string; base: string; commit: string; files: string[]; added: string[] }, signal: AbortSignal): Promise<Step> {
    for (;;) {
      if (signal.aborted || this.disposed) return 'done';
      const r = await land(p, m.into, m.base, m.commit, m.added, this.o.git);
      if (r.kind === 'landed') {
        this.known = r.state;
        await this.finishMerged(e, m, false);
        return 'done';
      }
      if (r.kind === 'moved') return 'again';
      if (!(await this.mine(e.id, { waiting: r.reason }))) return 'done';
      await sleep(this.o.pollMs ?? 2_000, signal);
    }
  }

  // The repository's paths, once per worker.
  private paths(): Promise<RepoPaths> {
    this.repo ??= repoPaths(this.root, this.o.git);
    return this.repo;
  }

  /** One temporary folder for the scratch checkouts of a drain, removed (with git's records) when it ends. */
  private async scratchDir(): Promise<string> {
    this.scratch ??= await mkdtemp(join(tmpdir(), 'agent-teams-merge-'));
    return this.scratch;
  }

  private async waitOut(e: MergeEntry, reason: string, signal: AbortSignal): Promise<Step> {
    if (!(await this.mine(e.id, { waiting: reason }))) return 'done';
    await sleep(this.o.pollMs ?? 2_000, signal);
    return signal.aborted ? 'done' : 'wait';
  }

  private async finishMerged(e: MergeEntry, r: { into: string; commit: string; files: string[] }, already: boolean): Promise<void> {
    // Landed is landed: recorded even if a cancel arrived after the branch moved.
    const done = await this.o.store.patch(e.id, {
      state: 'merged', worker: null, scratch: null, waiting: null, into: r.into, commit: r.commit, files: r.files,
      reason: already ? `${e.branch} was already part of ${r.into}` : null,
    });
    if (done) await tellMerged(this.o, done, already);
  }

  private async fail(e: MergeEntry, reason: string, extra: Partial<MergeEntry>): Promise<void> {
    if (!(await this.mine(e.id, { state: 'failed', worker: null, scratch: null, waiting: null, commit: null, reason, ...extra }))) return;
    await tellFailed(this.o, { ...e, ...extra, reason, state: 'failed' });
  }
}

function tail(output: string): string {
  const lines = output.replace(/\s+$/, '').split('\n').slice(-TAIL_LINES).join('\n');
  return lines.length > TAIL_CHARS ? `…${lines.slice(-TAIL_CHARS)}` : lines;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
