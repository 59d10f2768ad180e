// Works the merge queue (docs/file-formats.md, "Merge queue"): takes the first open entry
// under the queue's lock, makes the merge commit (integrate.ts), runs its test command in a
// scratch checkout of it as the teammate's own commands run (the `bash` engine: process group,
// timeout, output cap; in the sandbox, docs/security.md), and lands it only if the test passed. A run of entries
// shares one scratch checkout, moved from merge commit to merge commit, and each entry's
// file is written three times (claimed, its merge commit, settled): on a busy machine every
// process and write is felt (bench/merge-queue.bench.ts). One entry at a time across hosts: an entry being worked
// names its host, which renews a heartbeat; one whose host died or went silent is retried
// (its scratch checkout removed), or — if the host died between moving the branch and the
// files — finished.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MergeEntry } from '../../shared/merge-queue-schema';
import { isOpen } from '../../shared/merge-queue-schema';
import { DEFAULT_SANDBOX } from '../../shared/sandbox-schemas';
import { runShell } from '../exec/shell';
import { CommandSandbox } from '../sandbox/sandbox';
import type { ProcessRegistry } from '../exec/process-group';
import { isProcessAlive } from '../util/process-alive';
import { fileList } from '../worktree/errors';
import { identityArgs, type GitEnvOptions } from '../worktree/git';
import { repoInfo, resolveCommit } from '../worktree/repo';
import {
  changedFiles, cleanScratch, headState, indexAt, land, mergeCommit, moveScratch, openObjects, removeScratch, repoPaths, scratchCheckout, syncTree, type HeadState, type Objects, type QueueGit, type RepoPaths,
} from './integrate';
import { GitShell } from './git-shell';
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
  sandbox?: Pick<CommandSandbox, 'launch'>;
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
  /** This drain's temporary folder; its checkout, once made, is moved from merge commit to merge commit. */
  private scratch: string | null = null;
  private checkout: string | null = null;
  /** Removing what the last test left in the checkout: done before the checkout is used again. */
  private cleaning: Promise<void> = Promise.resolve();
  /** The notes of merged entries, sent while the next entry is worked (awaited before the drain ends). */
  private telling: Promise<unknown>[] = [];
  /** The drain's git: one shell that starts each git process (git-shell.ts), ended with the drain. */
  private shell: GitShell | null = null;
  private ownSandbox: CommandSandbox | null = null;
  /** The workspace branch as this worker left it after a landing (saves a git call per entry). */
  private known: HeadState | null = null;
  /** The drain's object reader and commit writer (object-store.ts); null: git processes instead. */
  private objs: Promise<Objects | null> | null = null;

  constructor(private readonly o: WorkerOptions) {
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
    const cur = this.current;
    cur?.ctl.abort();
    await this.idle();
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
      this.checkout = null;
      await this.cleaning;
      if (dir) await removeScratch(this.root, dir, this.g);
      const objs = this.objs;
      this.objs = null;
      (await objs)?.reader.dispose();
      const shell = this.shell;
      this.shell = null;
      await shell?.dispose();
      const told = this.telling;
      this.telling = [];
      await Promise.all(told);
    }
  }

  private gone(e: MergeEntry): boolean {
    const w = e.worker;
    if (!w) return true;
    if (w.host === this.o.hostId) return this.current?.id !== e.id;
    return !isProcessAlive(w.pid) || nowSeconds() - w.heartbeat_at > STALE_S;
  }

  /**
   * Under the lock: recovers entries of workers that went away, then takes the first open one
   * (onto the branch tip this worker just made, when it knows it).
   */
  private async claimNext(): Promise<MergeEntry | null> {
    const k = this.known;
    const onto = k?.branch && k.oid && !k.busy ? { into: k.branch, base: k.oid } : {};
    const litter: string[] = [];
    const picked = await this.o.store.update(async (entries) => {
      for (const e of entries) {
        if (e.state !== 'testing' || !this.gone(e)) continue;
        if (e.scratch && e.scratch !== this.scratch) litter.push(e.scratch);
        await this.recover(e);
      }
      const first = entries.find(isOpen);
      if (!first || first.state === 'testing') return null;
      Object.assign(first, {
        state: 'testing', worker: { host: this.o.hostId, pid: process.pid, heartbeat_at: nowSeconds() }, updated_at: nowSeconds(),
        waiting: null, reason: null, commit: null, ...onto,
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
      // An entry with a test has its file list written when it settles: asked now if the host died first.
      if (!e.files?.length) e.files = (await changedFiles(top, e.base!, e.commit!, this.o.git).catch(() => null))?.files;
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
    const st = this.known ?? (await headState(p, this.g));
    const claimedOnto = this.known !== null;
    this.known = null;
    if (st.busy) return this.waitOut(e, st.busy, signal);
    if (!st.oid) return this.waitOut(e, `branch ${st.branch} has no commit yet`, signal);
    const [into, base] = [st.branch!, st.oid];
    // Written with the claim when this worker knew the tip; else now.
    if (!(claimedOnto && e.into === into && e.base === base) && !(await this.mine(e.id, { into, base, commit: null, waiting: null }))) return 'done';
    this.identity ??= await identityArgs(p.top, this.o.git);
    const objects = await (this.objs ??= openObjects(p, this.identity, this.g).catch(() => null));
    const m = await mergeCommit(p.top, base, e.branch, `Merge ${e.branch} (teammate ${e.teammate}) into ${into}`, this.identity, this.g, objects ?? undefined);
    if (m.kind === 'conflict') {
      await this.fail(e, `conflicts with ${into} in ${fileList(m.files)}`, { files: m.files, into });
      return 'done';
    }
    // The commit is written down before anything else happens to it: a host that dies after the
    // branch moved to it is recognised as having landed it (recover()).
    if (!e.test_command) {
      const ch = await changedFiles(p.top, base, m.tree, this.g, objects ?? undefined);
      if (!ch.files.length) return this.nothing(e, into, base);
      if (!(await this.mine(e.id, { commit: m.commit, files: ch.files }))) return 'done';
      return this.landWhenClean(e, p, { into, base, commit: m.commit, ...ch }, signal);
    }
    // The drain's folder is written down too: a host that goes away leaves it for the next to remove.
    this.scratch ??= await mkdtemp(join(tmpdir(), 'agent-teams-merge-'));
    const [ours, scratch] = await Promise.all([this.mine(e.id, { commit: m.commit, scratch: this.scratch }), this.scratchAt(p.top, this.scratch, m.commit)]);
    // What the merge changes is asked of git while the test runs (the worker's shell is idle then).
    const changes = changedFiles(p.top, base, m.tree, this.g, objects ?? undefined);
    changes.catch(() => undefined);
    try {
      if (!ours) return 'done';
      const cwd = p.subdir ? join(scratch, p.subdir) : scratch;
      // Run as the teammate's own commands are: in the sandbox, or refused with the reason when
      // it is required and missing (docs/security.md). The code tested is the teammate's, so the
      // repository's git folder is read-only to it: it cannot move a branch and land itself.
      const plan = await this.sandbox().launch(e.teammate, cwd, e.test_command, { gitReadOnly: true });
      if ('refused' in plan) {
        await this.fail(e, `could not run the test command \`${e.test_command}\`: ${plan.refused}`, { into });
        return 'done';
      }
      const r = await runShell(e.test_command, {
        cwd, timeoutMs: this.o.testTimeoutMs ?? 600_000, maxOutputBytes: 30_000, signal, plan,
        ...(this.o.processes ? { track: { registry: this.o.processes, owner: e.teammate } } : {}),
      });
      if (signal.aborted) return 'done';
      const ch = await changes;
      // Already part of the workspace branch (its changes came another way): nothing to test or land.
      if (!ch.files.length) return this.nothing(e, into, base);
      if (r.exitCode !== 0) {
        const how = r.timedOut ? `timed out after ${Math.round(r.timeoutMs / 1000)} s` : r.error ? `could not start (${r.error})` : r.exitCode !== null ? `exit ${r.exitCode}` : `killed by ${r.signal}`;
        await this.fail(e, `failed the test command \`${e.test_command}\` on the merge (${how})`, { into, output_tail: tail(r.output) });
        return 'done';
      }
      return await this.landWhenClean(e, p, { into, base, commit: m.commit, ...ch }, signal);
    } finally {
      // What the test left is removed once the entry is settled, while the queue's files are written.
      this.cleaning = cleanScratch(scratch, this.g);
    }
  }

  private async nothing(e: MergeEntry, into: string, base: string): Promise<Step> {
    await this.finishMerged(e, { into, commit: base, files: [] }, true);
    return 'done';
  }

  private async landWhenClean(e: MergeEntry, p: RepoPaths, m: { into: string; base: string; commit: string; files: string[]; added: string[] }, signal: AbortSignal): Promise<Step> {
    for (;;) {
      if (signal.aborted || this.disposed) return 'done';
      const r = await land(p, m.into, m.base, m.commit, m.added, this.g);
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

  /** The host's sandbox, else one of this worker's own over the queue's settings (ended with the worker). */
  private sandbox(): Pick<CommandSandbox, 'launch'> {
    if (this.o.sandbox) return this.o.sandbox;
    this.ownSandbox ??= new CommandSandbox({
      root: this.root,
      settings: () => this.o.settings().sandbox ?? DEFAULT_SANDBOX,
      rules: () => this.o.settings().permissions,
      notice: (level, message, agent) => this.o.notify(level, message, agent),
    });
    return this.ownSandbox;
  }

  // The repository's paths, once per worker.
  private paths(): Promise<RepoPaths> {
    this.repo ??= repoPaths(this.root, this.o.git);
    return this.repo;
  }

  /**
   * The drain's scratch checkout at `commit`: made at the first test of a drain (a detached
   * `git worktree` in a temporary folder, removed with git's record when the drain ends), then
   * moved from merge commit to merge commit, what the last test left removed first.
   */
  private async scratchAt(top: string, folder: string, commit: string): Promise<string> {
    await this.cleaning;
    if (this.checkout && (await moveScratch(this.checkout, commit, this.g))) return this.checkout;
    if (this.checkout) await rm(this.checkout, { recursive: true, force: true });
    const dir = join(folder, `checkout-${randomBytes(3).toString('hex')}`);
    await scratchCheckout(top, dir, commit, this.g);
    this.checkout = dir;
    return dir;
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
    // Told while the next entry is worked: nothing of the queue waits for the mailboxes.
    if (done) this.telling.push(tellMerged(this.o, done, already).catch(() => undefined));
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
