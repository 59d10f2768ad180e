// `.team/merge-queue.json` (docs/file-formats.md, "Merge queue"): read lock-free (the file is
// replaced atomically), changed only under its lock, so hosts and CLI processes adding,
// cancelling and working entries never lose each other's writes. A corrupt file is moved
// aside and reported, and the queue starts empty.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MergeQueueFile, type MergeEntry } from '../../shared/schemas/merge-queue';
import { readJsonFile, writeJsonAtomic } from '../util/atomic-file';
import { withFileLock } from '../util/file-lock';

/** Finished entries kept for the views and `agent-teams queue` (older ones are dropped). */
const KEEP_DONE = 100;

export const nowSeconds = (): number => Date.now() / 1000;

export const newEntryId = (): string => `mq_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export class QueueStore {
  readonly path: string;
  private readonly lockPath: string;

  constructor(teamRoot: string) {
    this.path = join(teamRoot, '.team', 'merge-queue.json');
    this.lockPath = join(teamRoot, '.team', 'merge-queue.lock');
  }

  /** The entries, oldest first. */
  async read(): Promise<MergeEntry[]> {
    const r = await readJsonFile(this.path, MergeQueueFile);
    return r.kind === 'ok' ? r.value.entries : [];
  }

  /**
   * Changes the entries under the lock; `fn` edits the list in place and returns a result.
   * The file is written only when `fn` returns without throwing.
   */
  async update<T>(fn: (entries: MergeEntry[]) => T | Promise<T>): Promise<T> {
    return withFileLock(this.lockPath, async (stillOurs) => {
      const entries = await this.read();
      const before = JSON.stringify(entries);
      const result = await fn(entries);
      if (JSON.stringify(entries) !== before) {
        const done = entries.filter((e) => e.state === 'merged' || e.state === 'failed' || e.state === 'cancelled');
        const drop = new Set(done.slice(0, Math.max(0, done.length - KEEP_DONE)));
        const kept = entries.filter((e) => !drop.has(e));
        await writeJsonAtomic(this.path, MergeQueueFile.parse({ version: 1, entries: kept }), stillOurs);
      }
      return result;
    });
  }

  /** Writes `change` to entry `id` whatever its state; the entry after it, or undefined when it is gone. */
  set(id: string, change: Partial<MergeEntry>): Promise<MergeEntry | undefined> {
    return this.update((entries) => {
      const e = entries.find((x) => x.id === id);
      return e && { ...Object.assign(e, change) };
    });
  }

  /** Writes `change` to entry `id` while host `host` works it; false when it does not (cancelled, taken back). */
  mine(id: string, host: string, change: Partial<MergeEntry>): Promise<boolean> {
    return this.update((entries) => {
      const e = entries.find((x) => x.id === id);
      if (!e || e.state !== 'testing' || e.worker?.host !== host) return false;
      Object.assign(e, change, { updated_at: nowSeconds() });
      return true;
    });
  }
}
