// One process's view of the task board, kept up to date by reading only the task files that
// changed (issue 12: re-reading a 1,300-task board whole stalled the host every 10 s). What
// changed comes from three places:
// - the generation record (.tasks/.generation) every writer bumps, naming the ids it wrote;
// - the folder listing, re-read only when the folder's stamp moved (a file added or removed);
// - a background check every TRUST_MS that compares each file's stamp (inode, size, mtime,
//   ctime) with the one it had when read, for edits made by hand, off the hot path: it only
//   marks files, the next read re-reads them.
// A file that cannot be read or parsed is reported by `read` (and left out) every time it is
// tried, as before. See docs/file-formats.md, "Tasks".
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../shared/schemas';
import { reportProblem } from '../util/problems';
import { chainText, findCycles } from './task-rules';

/** A task file's name (task_<id>.json). */
export const TASK_FILE = /^task_(\d+)\.json$/;
/** How often files are compared with their stamps for changes made without a generation bump. */
export const TRUST_MS = 10_000;
/**
 * File times move in clock ticks (a few ms): two writes within one tick may leave the same
 * stamp. A stamp is trusted only when taken this long after the file last changed.
 */
const SETTLE_MS = 50;
/** Files stamped at once by the background check: the thread pool stays free for other I/O. */
const STAT_BATCH = 64;

export interface Stamp {
  key: string;
  /** False: the file changed so recently that a write in the same tick could hide behind it. */
  settled: boolean;
}

export async function stampOf(path: string): Promise<Stamp | null> {
  const now = Date.now();
  const st = await stat(path, { bigint: true }).catch(() => null);
  if (!st) return null;
  const changedMs = Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n);
  return { key: `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, settled: now - changedMs > SETTLE_MS };
}

/** Whether `now` shows the file as it was when `before` was taken. */
export function sameStamp(before: Stamp | null | undefined, now: Stamp | null): boolean {
  return !!before && !!now && before.settled && before.key === now.key;
}

export interface GenerationRecord {
  gen: number;
  changes: Array<[number, number[]]>;
}

interface Entry {
  task: Task;
  stamp: Stamp | null;
}

export class TaskView {
  private gen = -1;
  private loaded = false;
  private readonly entries = new Map<number, Entry>();
  private sorted: Task[] | null = null;
  private listing: { stamp: Stamp; ids: number[] } | null = null;
  /** Files the background check found changed: read again by the next snapshot. */
  private readonly dirty = new Set<number>();
  private checkedAt = 0;
  private checking = false;
  private generation: { stamp: Stamp; value: GenerationRecord } | null = null;
  private running: Promise<Task[]> | null = null;
  private next: Promise<Task[]> | null = null;

  constructor(
    private readonly dir: string,
    private readonly path: (id: number) => string,
    private readonly read: (id: number) => Promise<Task | undefined>,
    private readonly generationPath: string,
    private readonly readGeneration: () => Promise<GenerationRecord>,
    private readonly trustMs = TRUST_MS,
  ) {}

  /**
   * The board as of now (shared objects: callers clone what they hand out). One refresh runs
   * at a time; callers arriving meanwhile share the next one, which starts after it.
   */
  snapshot(): Promise<Task[]> {
    if (!this.running) {
      this.running = this.refresh().finally(() => (this.running = null));
      return this.running;
    }
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = null;
      return this.snapshot();
    });
    return this.next;
  }

  /** The generation record, parsed again only when its file changed. */
  private async currentGeneration(): Promise<GenerationRecord> {
    const s = await stampOf(this.generationPath);
    if (s && this.generation && sameStamp(this.generation.stamp, s)) return this.generation.value;
    const value = await this.readGeneration();
    this.generation = s ? { stamp: s, value } : null;
    return value;
  }

  /** Task ids of the files in the folder, numerically sorted; the listing is re-read only when the folder changed. */
  async ids(): Promise<number[]> {
    const s = await stampOf(this.dir);
    if (!s) return [];
    if (this.listing && sameStamp(this.listing.stamp, s)) return this.listing.ids;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const ids: number[] = [];
    for (const n of names) {
      const m = TASK_FILE.exec(n);
      if (m) ids.push(Number(m[1]));
    }
    ids.sort((a, b) => a - b);
    this.listing = { stamp: s, ids };
    return ids;
  }

  /** Reads only what changed since the last refresh. */
  private async refresh(): Promise<Task[]> {
    const [g, onDisk] = await Promise.all([this.currentGeneration(), this.ids()]);
    const toRead = new Set<number>(this.dirty);
    this.dirty.clear();
    if (!this.loaded) onDisk.forEach((id) => toRead.add(id));
    else if (g.gen !== this.gen) {
      const covered = g.changes.length > 0 && g.changes[0]![0] <= this.gen + 1 && g.gen > this.gen;
      if (covered) {
        for (const [gen, ids] of g.changes) if (gen > this.gen) ids.forEach((id) => toRead.add(id));
      } else {
        // More changes than the record keeps (or it was reset): the stamps say which.
        (await this.changedSinceRead(onDisk)).forEach((id) => toRead.add(id));
      }
    }
    const present = new Set(onDisk);
    // New files (also by hand), and files that could not be read last time.
    for (const id of onDisk) if (!this.entries.has(id)) toRead.add(id);
    let changed = false;
    for (const id of [...this.entries.keys()]) {
      if (!present.has(id)) changed = this.entries.delete(id) || changed;
    }
    await Promise.all([...toRead].filter((id) => present.has(id)).map(async (id) => {
      const stamp = await stampOf(this.path(id));
      const task = await this.read(id);
      changed = true;
      if (task) this.entries.set(id, { task, stamp });
      else this.entries.delete(id);
    }));
    this.gen = g.gen;
    if (changed) this.sorted = null;
    if (!this.loaded) {
      this.loaded = true;
      this.checkedAt = Date.now();
      this.reportCycles();
    } else if (Date.now() - this.checkedAt > this.trustMs && !this.checking) {
      void this.check();
    }
    this.sorted ??= [...this.entries.keys()].sort((a, b) => a - b).map((id) => this.entries.get(id)!.task);
    return this.sorted;
  }

  /** Ids among `ids` whose file is not as it was when last read. */
  private async changedSinceRead(ids: readonly number[]): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < ids.length; i += STAT_BATCH) {
      const batch = ids.slice(i, i + STAT_BATCH);
      const stamps = await Promise.all(batch.map((id) => stampOf(this.path(id))));
      batch.forEach((id, k) => {
        if (!sameStamp(this.entries.get(id)?.stamp, stamps[k]!)) out.push(id);
      });
    }
    return out;
  }

  /** The background check: marks files edited without a generation bump. */
  private async check(): Promise<void> {
    this.checking = true;
    try {
      for (const id of await this.changedSinceRead([...this.entries.keys()])) this.dirty.add(id);
      this.reportCycles();
    } finally {
      this.checkedAt = Date.now();
      this.checking = false;
    }
  }

  private reportCycles(): void {
    for (const c of findCycles([...this.entries.values()].map((e) => e.task))) {
      reportProblem({ path: this.dir, message: `blockedBy cycle ${chainText(c)}: these tasks can never be claimed; remove one of the blockers` });
    }
  }
}
