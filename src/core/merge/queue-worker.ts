// Works the merge queue (docs/file-formats.md, "Merge queue"): takes the first open entry
// under the queue's lock, makes the merge commit (integrate.ts), runs its test command in a
// scratch checkout of it (scratch.ts, queue-test.ts), and lands it only if the test passed.
// While an entry's test runs the next one is merged onto the commit under test (look-ahead.ts);
// a landed entry is written as merged with the next claim. A run of entries shares one git
// shell, object reader and scratch checkout, which outlive it by `lingerMs`: on a busy machine
// every process and write is felt (bench/merge-queue.bench.ts). One entry at a time across
// hosts: an entry being worked names its host, which renews a heartbeat; one whose host died
// or went silent is retried, or finished if its branch had moved (queue-recover.ts).
import { join } from 'node:path';
import type { MergeEntry } from '../../shared/merge-queue-schema';
import { isOpen } from '../../shared/merge-queue-schema';
import { DEFAULT_SANDBOX } from '../../shared/sandbox-schemas';
import { CommandSandbox } from '../sandbox/sandbox';
import type { ProcessRegistry } from '../exec/process-group';
import { isProcessAlive } from '../util/process-alive';
import { fileList } from '../worktree/errors';
import { identityArgs, type GitEnvOptions } from '../worktree/git';
import {
  changedFiles, headState, land, mergeCommit, openObjects, removeScratch, repoPaths, type HeadState, type Objects, type QueueGit, type RepoPaths,
} from './integrate';
import { GitShell } from './git-shell';
import type { MergeQueueOptions } from './queue-options';
import { recoverEntry } from './queue-recover';
import { nowSeconds, type QueueStore } from './queue-store';
import { tellFailed, tellMerged } from './queue-notes';
import { QUEUE_BOX, runEntryTest, testsOf, type TestSandbox } from './queue-test';
import { ScratchCheckout } from './scratch';
import { LookAhead, mergeMessage, type Merged } from './look-ahead';
import { approvedAll, askControl, controlChanges, type AskChange } from './control-gate';

/** A worker silent this long has gone away (heartbeats every HEARTBEAT_MS). */
const STALE_S = 30;
const HEARTBEAT_MS = 5_000;

export interface WorkerOptions extends MergeQueueOptions {
  store: QueueStore;
  git: GitEnvOptions;
  processes?: ProcessRegistry;
  sandbox?: TestSandbox;
  notify: (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;
  askChange?: AskChange;
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
  private readonly scratch: ScratchCheckout;
  /** The notes of merged entries, sent while the next entry is worked (awaited before the drain ends). */
  private telling: Promise<unknown>[] = [];
  /** A landed entry, written as merged with the next claim (one write of the queue file instead of two). */
  private settled: { e: MergeEntry; change: Partial<MergeEntry>; already: boolean } | null = null;
  /** One shell that starts each git process (git-shell.ts). */
  private shell: GitShell | null = null;
  /** The object reader and commit writer (object-store.ts); null: git processes instead. */
  private objs: Promise<Objects | null> | null = null;
  private ownSandbox: CommandSandbox | null = null;
  /** The workspace branch as this worker left it after a landing (saves a git call per entry). */
  private known: HeadState | null = null;
  private readonly ahead = new LookAhead();
  /** Ends the shell, reader and scratch checkout once the queue has been idle for lingerMs. */
  private lingering: NodeJS.Timeout | null = null;

  constructor(private readonly o: WorkerOptions) {
    this.scratch = new ScratchCheckout(o.worktrees.root, o.git);
    // Entries added by other processes (the CLI) and hosts that went away are found by polling.
    this.poll = setInterval(() => this.kick(), o.pollMs ?? 2_000);
    this.poll.unref();
  }

  private get g(): QueueGit {
    this.shell ??= new GitShell(this.o.git);
    return { ...this.o.git, run: this.shell.run };
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
    if (this.lingering) clearTimeout(this.lingering);
    const cur = this.current;
    cur?.ctl.abort();
    await this.idle();
    await this.release();
    await this.ownSandbox?.dispose();
    // Handed back at once rather than after STALE_S: the next host retries it.
    if (cur) {
      await this.o.store.update((entries) => {
        const e = entries.find((x) => x.id === cur.id);
        if (e?.state === 'testing' && e.worker?.host === this.o.hostId) Object.assign(e, { state: 'queued', worker: null, waiting: null, updated_at: nowSeconds() });
      }).catch(() => undefined);
    }
  }

  private async drain(): Promise<void> {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
    try {
      while (!this.disposed) {
        const next = await this.claimNext();
        if (!next) return;
        await this.work(next.e, next.m);
      }
    } finally {
      await this.writeSettled();
      // The user may commit before the next run: its first entry reads the branch again.
      this.known = null;
      this.ahead.clear();
      const told = this.telling;
      this.telling = [];
      await Promise.all(told);
      if (this.disposed) await this.release();
      else {
        this.lingering = setTimeout(() => { this.lingering = null; if (!this.loop) void this.release(); }, this.o.lingerMs ?? 30_000);
        this.lingering.unref();
      }
    }
  }

  /** Removes the scratch checkout and ends the git shell and object reader (the next run makes new ones). */
  private async release(): Promise<void> {
    const [objs, shell] = [this.objs, this.shell];
    [this.objs, this.shell] = [null, null];
    (await objs?.catch(() => null))?.reader.dispose();
    await this.scratch.release().catch(() => undefined);
    await shell?.dispose();
  }

  private gone(e: MergeEntry): boolean {
    const w = e.worker;
    if (!w) return true;
    if (w.host === this.o.hostId) return this.current?.id !== e.id;
    return !isProcessAlive(w.pid) || nowSeconds() - w.heartbeat_at > STALE_S;
  }

  /**
   * Under the lock: recovers entries of workers that went away, then takes the first open one
   * (onto the branch tip this worker just made, when it knows it) — with the merge made ahead
   * for it, when that was made onto that tip from the branch's tip now.
   */
  private async claimNext(): Promise<{ e: MergeEntry; m?: Merged } | null> {
    const k = this.known;
    const onto = k?.branch && k.oid && !k.busy ? { into: k.branch, base: k.oid } : null;
    const made = await this.ahead.take(onto, this.objs ? await this.objs : null);
    const folder = made ? await this.scratch.folder() : null;
    const litter: string[] = [];
    const settled = this.settled;
    let done: MergeEntry | undefined;
    const picked = await this.o.store.update(async (entries) => {
      // First the entry that just landed (else it would look like one whose worker went away).
      if (settled) done = settle(entries, settled);
      for (const e of entries) {
        if (e.state !== 'testing' || !this.gone(e)) continue;
        if (e.scratch) litter.push(e.scratch);
        if (await recoverEntry(this.root, e, this.o.git)) this.o.notify('info', `Merge queue: ${e.teammate}'s entry was being worked by a host that went away; it is tried again.`, e.teammate);
      }
      const first = entries.find(isOpen);
      if (!first || first.state === 'testing') return null;
      const use = made?.id === first.id && first.branch === made.branch && first.test_command ? made.m : undefined;
      Object.assign(first, {
        state: 'testing', worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() }, updated_at: nowSeconds(),
        waiting: null, reason: null, commit: use?.commit ?? null, ...(onto ?? {}), ...(use ? { scratch: folder } : {}),
      });
      return { e: { ...first }, ...(use ? { m: use } : {}) };
    });
    this.told(settled, done);
    for (const s of litter) if (!this.scratch.owns(s)) await removeScratch(this.root, s, this.o.git);
    return picked;
  }

  /** Writes a landed entry not written with a claim (the run ended, or the claim failed). */
  private async writeSettled(): Promise<void> {
    const settled = this.settled;
    if (!settled) return;
    let done: MergeEntry | undefined;
    await this.o.store.update((entries) => { done = settle(entries, settled); }).catch(() => undefined);
    this.told(settled, done);
  }

  // Told while the next entry is worked: nothing of the queue waits for the mailboxes.
  private told(settled: QueueWorker['settled'], done: MergeEntry | undefined): void {
    if (!settled || this.settled !== settled) return;
    this.settled = null;
    if (done) this.telling.push(tellMerged(this.o, done, settled.already).catch(() => undefined));
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

  private async work(e: MergeEntry, made?: Merged): Promise<void> {
    const ctl = new AbortController();
    this.current = { id: e.id, ctl };
    const beat = setInterval(() => {
      void this.mine(e.id, { worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() } })
        .then((still) => { if (!still) ctl.abort(); }, () => undefined);
    }, HEARTBEAT_MS);
    try {
      let moves = 0;
      while (!ctl.signal.aborted && !this.disposed) {
        const step = await this.attempt(e, ctl.signal, moves === 0 ? made : undefined);
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
  private async attempt(e: MergeEntry, signal: AbortSignal, made?: Merged): Promise<Step> {
    const p = await this.paths();
    // Right after a landing this host knows the tip it just made (landWhenClean re-checks anyway).
    const st = this.known ?? (await headState(p, this.g));
    const claimedOnto = this.known !== null;
    this.known = null;
    if (st.busy) return this.waitOut(e, st.busy, signal);
    if (!st.oid) return this.waitOut(e, `branch ${st.branch} has no commit yet`, signal);
    const [into, base] = [st.branch!, st.oid];
    const written = claimedOnto && e.into === into && e.base === base;
    // Made ahead and written with the claim (claimNext): straight to the test.
    if (made && written && e.commit === made.commit) return this.test(e, p, { into, base }, made, true, signal);
    // The tests' sandbox (its proxy and network namespace) is readied while the merge is made.
    if (e.test_command) void this.sandbox().prepare?.(QUEUE_BOX);
    if (!written && !(await this.mine(e.id, { into, base, commit: null, waiting: null }))) return 'done';
    const objects = await this.objects(p);
    const m = await mergeCommit(p.top, base, e.branch, mergeMessage(e, into), this.identity!, this.g, objects ?? undefined);
    if (m.kind === 'conflict') {
      await this.fail(e, `conflicts with ${into} in ${fileList(m.files)}`, { files: m.files, into });
      return 'done';
    }
    // The commit is written down before anything else happens to it: a host that dies after the
    // branch moved to it is recognised as having landed it (recoverEntry).
    if (!testsOf(e).length) {
      const ch = await changedFiles(p.top, base, m.tree, this.g, objects ?? undefined);
      if (!ch.files.length) return this.nothing(e, into, base);
      if (!(await this.mine(e.id, { commit: m.commit, files: ch.files }))) return 'done';
      if (!(await this.gate(e, p, { into, base, commit: m.commit, tree: m.tree, files: ch.files }, signal))) return 'done';
      return this.landWhenClean(e, p, { into, base, commit: m.commit, ...ch }, signal);
    }
    return this.test(e, p, { into, base }, m, false, signal);
  }

  /** Tests merge `m` of `e` in the scratch checkout and lands it if it passes. `written`: its commit is in the queue file already. */
  private async test(e: MergeEntry, p: RepoPaths, at: { into: string; base: string }, m: Merged, written: boolean, signal: AbortSignal): Promise<Step> {
    const { into, base } = at;
    const objects = await this.objects(p);
    // The scratch folder is written down too: a host that goes away leaves it for the next to remove.
    const folder = await this.scratch.folder();
    const [ours, checkout] = await Promise.all([written || this.mine(e.id, { commit: m.commit, scratch: folder }), this.scratch.at(p.top, m.commit)]);
    // What the merge changes is read while the test runs.
    const changes = changedFiles(p.top, base, m.tree, this.g, objects ?? undefined);
    changes.catch(() => undefined);
    try {
      if (!ours) return 'done';
      const testing = runEntryTest(this.sandbox(), e, p.subdir ? join(checkout, p.subdir) : checkout, signal, { timeoutMs: this.o.testTimeoutMs, processes: this.o.processes });
      // Meanwhile the next entry is merged onto this merge commit (the tip if this one lands).
      if (objects) this.ahead.start(e, into, m.commit, () => this.o.store.read(), p.top, this.identity!, this.g, objects);
      const r = await testing;
      // The checkout is emptied, and moved to the next entry's merge, while this one lands.
      this.scratch.clean();
      this.scratch.preload(p.top, this.ahead.commit());
      if (r.kind === 'aborted') return 'done';
      const ch = await changes;
      // Already part of the workspace branch (its changes came another way): nothing to test or land.
      if (!ch.files.length) return this.nothing(e, into, base);
      if (r.kind === 'failed') {
        await this.fail(e, r.reason, { into, ...(r.output_tail !== undefined ? { output_tail: r.output_tail } : {}) });
        return 'done';
      }
      if (!(await this.gate(e, p, { into, base, commit: m.commit, tree: m.tree, files: ch.files }, signal))) return 'done';
      return await this.landWhenClean(e, p, { into, base, commit: m.commit, ...ch }, signal);
    } finally {
      this.scratch.clean();
    }
  }

  private async objects(p: RepoPaths): Promise<Objects | null> {
    this.identity ??= await identityArgs(p.top, this.o.git, this.g.run);
    return (this.objs ??= openObjects(p, this.identity, this.g).catch(() => null));
  }

  private async nothing(e: MergeEntry, into: string, base: string): Promise<Step> {
    this.finishMerged(e, { into, commit: base, files: [] }, true);
    return 'done';
  }

  private async landWhenClean(e: MergeEntry, p: RepoPaths, m: { into: string; base: string; commit: string; files: string[]; added: string[] }, signal: AbortSignal): Promise<Step> {
    for (;;) {
      if (signal.aborted || this.disposed) return 'done';
      const r = await land(p, m.into, m.base, m.commit, m.added, this.g);
      if (r.kind === 'landed') {
        this.known = r.state;
        this.finishMerged(e, { ...m, into: r.state.branch ?? m.into }, false);
        return 'done';
      }
      if (r.kind === 'moved') return 'again';
      if (!(await this.mine(e.id, { waiting: r.reason }))) return 'done';
      await sleep(this.o.pollMs ?? 2_000, signal);
    }
  }

  /** The host's sandbox, else one of this worker's own over the queue's settings (ended with the worker). */
  private sandbox(): TestSandbox {
    if (this.o.sandbox) return this.o.sandbox;
    this.ownSandbox ??= new CommandSandbox({
      root: this.root,
      settings: () => this.o.settings().sandbox ?? DEFAULT_SANDBOX,
      rules: () => this.o.settings().permissions,
      notice: (level, msg, agent) => this.o.notify(level, msg, agent),
    });
    return this.ownSandbox;
  }

  // The repository's paths, once per worker.
  private paths(): Promise<RepoPaths> {
    this.repo ??= repoPaths(this.root, this.g);
    this.repo.catch(() => { this.repo = null; });
    return this.repo;
  }

  private async waitOut(e: MergeEntry, reason: string, signal: AbortSignal): Promise<Step> {
    if (!(await this.mine(e.id, { waiting: reason }))) return 'done';
    await sleep(this.o.pollMs ?? 2_000, signal);
    return signal.aborted ? 'done' : 'wait';
  }

  /** Settles `e` as merged: written with the next claim, or when the run ends (a host that dies first is recovered as having landed it). */
  private finishMerged(e: MergeEntry, r: { into: string; commit: string; files: string[] }, already: boolean): void {
    this.settled = {
      e, already,
      change: { state: 'merged', worker: null, scratch: null, waiting: null, into: r.into, commit: r.commit, files: r.files, reason: already ? `${e.branch} was already part of ${r.into}` : null },
    };
  }

  /**
   * The gate (control-gate.ts): true when the merge may land — it changes no control path, or
   * only ones approved for this entry, or the user (asked now, with the diff) says yes. Else
   * the entry is held: failed with the changes listed, for `queue approve`.
   */
  private async gate(e: MergeEntry, p: RepoPaths, m: { into: string; base: string; commit: string; tree: string; files: string[] }, signal: AbortSignal): Promise<boolean> {
    const changes = await controlChanges(p.top, m.base, m.tree, m.files, this.o.git);
    // Asked about: the changes not approved for this entry to the byte.
    const pending = changes.filter((c) => !approvedAll([c], e.approved));
    if (!pending.length) return true;
    const list = fileList(pending.map((c) => c.path));
    const ask = this.o.askChange;
    if (ask) {
      if (!(await this.mine(e.id, { waiting: `asks for your approval: it changes control files (${list})` }))) return false;
      if (await askControl(ask, e, p.top, m.base, pending, this.o.git, signal)) return this.mine(e.id, { waiting: null });
      if (signal.aborted) return false;
    }
    const why = ask ? 'you did not approve them' : 'those land only on the user\'s yes';
    await this.fail(e, `changes control files (${list}) and ${why}; \`agent-teams queue approve ${e.teammate}\` shows their diff and lands it on your yes`, {
      into: m.into, base: m.base, commit: m.commit, control: changes,
    });
    return false;
  }

  private async fail(e: MergeEntry, reason: string, extra: Partial<MergeEntry>): Promise<void> {
    if (!(await this.mine(e.id, { state: 'failed', worker: null, scratch: null, waiting: null, commit: null, reason, ...extra }))) return;
    await tellFailed(this.o, { ...e, ...extra, reason, state: 'failed' });
  }
}

/** Writes a landed entry as merged — even if a cancel arrived after the branch moved: landed is landed. */
function settle(entries: MergeEntry[], s: { e: MergeEntry; change: Partial<MergeEntry> }): MergeEntry | undefined {
  const e = entries.find((x) => x.id === s.e.id);
  if (e) Object.assign(e, s.change, { updated_at: nowSeconds() });
  return e ? { ...e } : undefined;
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
