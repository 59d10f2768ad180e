// Append-only JSON-lines files, shared by inboxes and transcripts.
// Appends from one process are queued per file and coalesced into single O_APPEND writes,
// which keeps per-sender order and gives throughput; appends from several processes
// interleave whole lines. Readers resume from a byte offset and never consume a line that
// is not yet terminated. A line damaged by a writer killed mid-write is reported and
// skipped; a record appended right after the damage is recovered, not lost.
import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { ioFault } from '../util/io-faults';

interface Pending {
  /** The record, or a promise of it: the slot in the file is taken when the call is made. */
  record: unknown | Promise<unknown>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

const queues = new Map<string, Pending[]>();

/**
 * Append handles kept open between bursts (one open per burst, not per message), with the
 * identity of the file they opened and when it was last checked against the path.
 */
interface Handle {
  fh: Promise<{ fh: FileHandle; ino: number; dev: number }>;
  timer: NodeJS.Timeout | null;
  checkedAt: number;
}
const handles = new Map<string, Handle>();
/** Append, creating it if absent, never through a symbolic link (a link planted by a repository or an agent). */
export const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const IDLE_CLOSE_MS = 2000;
/**
 * How often a cached handle is checked against its path. A file replaced or deleted by hand
 * would otherwise take appends into its unlinked inode; checking every append costs ~25 %
 * of awaited throughput (bench/README.md), so only appends within this long of a replace
 * can still go to the old file.
 */
const RECHECK_MS = 50;

function handleFor(path: string): Handle {
  let h = handles.get(path);
  if (!h) {
    // O_NOFOLLOW: an inbox or transcript that is a symbolic link (shipped in a repository)
    // must not turn our appends into writes to whatever it points at.
    const fh = open(path, APPEND_NO_FOLLOW, 0o644).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP') throw new Error(`${path} is a symbolic link: not appending through it`);
      throw err;
    }).then(async (f) => {
      const st = await f.stat().catch(async (e: unknown) => {
        await f.close().catch(() => undefined);
        throw e;
      });
      return { fh: f, ino: st.ino, dev: st.dev };
    });
    h = { fh, timer: null, checkedAt: Date.now() };
    handles.set(path, h);
    fh.catch(() => handles.delete(path));
  }
  if (h.timer) clearTimeout(h.timer);
  h.timer = setTimeout(() => dropHandle(path), IDLE_CLOSE_MS);
  h.timer.unref();
  return h;
}

/** Forgets the cached handle of `path` (closing it once pending writes are done). */
function dropHandle(path: string): void {
  const h = handles.get(path);
  if (!h) return;
  handles.delete(path);
  if (h.timer) clearTimeout(h.timer);
  void h.fh.then((o) => o.fh.close()).catch(() => undefined);
}

async function writeAll(path: string, text: string): Promise<void> {
  ioFault('write', path);
  let h = handleFor(path);
  let opened = await h.fh;
  if (Date.now() - h.checkedAt > RECHECK_MS) {
    const now = await stat(path).catch(() => null);
    h.checkedAt = Date.now();
    if (!now || now.ino !== opened.ino || now.dev !== opened.dev) {
      dropHandle(path);
      h = handleFor(path);
      opened = await h.fh;
    }
  }
  const buf = Buffer.from(text);
  // O_APPEND: each write lands at the end of the file whoever else appends.
  let off = 0;
  while (off < buf.length) off += (await opened.fh.write(buf, off, buf.length - off)).bytesWritten;
}

async function flush(path: string): Promise<void> {
  const q = queues.get(path);
  if (!q) return;
  while (q.length > 0) {
    const batch = q.splice(0, q.length);
    // Records resolve in any order; they are written in the order the calls were made.
    const settled = await Promise.allSettled(batch.map((p) => p.record));
    const lines: string[] = [];
    settled.forEach((r) => {
      if (r.status === 'fulfilled') lines.push(JSON.stringify(r.value) + '\n');
    });
    try {
      if (lines.length) await writeAll(path, lines.join(''));
      batch.forEach((p, i) => {
        const r = settled[i]!;
        if (r.status === 'fulfilled') p.resolve();
        else p.reject(r.reason);
      });
    } catch (err) {
      // The next append opens afresh; this handle is closed, not left for the GC (an fd a
      // day-long host would leak on every failed write, e.g. each one while the disk is full).
      dropHandle(path);
      for (const p of batch) p.reject(err);
    }
  }
  queues.delete(path);
}

/**
 * Appends one JSON record as a line; resolves once it is in the file. `record` may be a
 * promise (validation still running): its place in the file is fixed now, so one caller's
 * appends keep their order even when issued without awaiting each other. A rejected record
 * is not written and its caller gets the rejection.
 */
export function appendJsonLine(path: string, record: unknown | Promise<unknown>): Promise<void> {
  // Its rejection is delivered to the caller below; until the flush looks at it, it waits.
  if (record instanceof Promise) record.catch(() => undefined);
  return new Promise<void>((resolve, reject) => {
    const q = queues.get(path);
    if (q) {
      q.push({ record, resolve, reject });
      return;
    }
    queues.set(path, [{ record, resolve, reject }]);
    void flush(path);
  });
}

export { readJsonLines, scanJsonLines, type LineRecord, type ReadResult, type ScanOptions } from './jsonl-read';
