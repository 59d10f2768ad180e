// Reads an agent's transcript file for people (the transcript view, `agent-teams log` and
// `export`), never all at once: a view starts from the last few megabytes of a file of any
// size and then follows what is appended. Lines that are not JSON, or not entries by the
// transcript's schema (src/shared/schemas/transcripts.ts), are reported by offset and
// skipped. Opened with O_NOFOLLOW: a transcript that is a symbolic link is not shown.
import { constants, watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseTranscriptLine } from '../../shared/schemas/transcripts';
import type { TranscriptItem } from '../../shared/transcript-items';
import { ItemBuilder, type ItemChange } from './transcript-items';
import { coalesce } from '../util/coalesce';

/** How much of the end of a transcript a view starts with. */
export const DEFAULT_TAIL_BYTES = 16 * 1024 * 1024;
const CHUNK = 1 << 20;
/** How often a follower without a file watch looks for appends. */
const UNWATCHED_POLL_MS = 250;

export type Line = { offset: number; value: unknown } | { offset: number; bad: true };

/**
 * Calls `onLine` for each complete line from `from` (a line cut by `from` is skipped), and
 * returns the offset after the last complete line.
 */
export async function scanLines(path: string, from: number, onLine: (l: Line) => void): Promise<{ next: number; size: number }> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { next: 0, size: 0 };
    if (code === 'ELOOP') throw new Error(`${path} is a symbolic link: not reading it as a transcript`);
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    if (from > size) from = 0; // replaced or truncated: start over
    let pos = from;
    let carry = Buffer.alloc(0);
    let carryStart = from;
    // Starting mid-file: the first (partial) line is not ours to show.
    let skipFirst = from > 0;
    if (skipFirst) {
      const one = Buffer.alloc(1);
      await fh.read(one, 0, 1, from - 1);
      if (one[0] === 10) skipFirst = false;
    }
    while (pos < size) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - pos));
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
        const offset = carryStart + start;
        if (skipFirst) skipFirst = false;
        else if (nl > start) {
          const text = data.toString('utf8', start, nl);
          if (text.trim()) {
            try {
              onLine({ offset, value: JSON.parse(text) as unknown });
            } catch {
              onLine({ offset, bad: true });
            }
          }
        }
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryStart += start;
    }
    return { next: carryStart, size };
  } finally {
    await fh.close();
  }
}

export interface Loaded {
  /** Bytes at the start of the file not read (a long transcript). */
  skippedBytes: number;
  next: number;
}

/**
 * A transcript as items: `load` reads the end of the file, `more` what was appended since.
 * Changes go to `onChange` in file order.
 */
export class TranscriptFollower {
  readonly builder: ItemBuilder;
  private next = 0;

  constructor(readonly path: string, agent: string, private readonly onChange: (c: ItemChange) => void) {
    this.builder = new ItemBuilder(agent);
  }

  async load(tailBytes = DEFAULT_TAIL_BYTES): Promise<Loaded> {
    const size = await fileSize(this.path);
    const from = Math.max(0, size - tailBytes);
    const r = await scanLines(this.path, from, (l) => this.line(l));
    this.next = r.next;
    return { skippedBytes: from, next: r.next };
  }

  /**
   * Reads what was appended since the last read. True if the file was replaced, or grew by
   * more than a view starts with: the next read is then from that much before its end, and
   * a view starts over.
   */
  async more(): Promise<boolean> {
    const size = await fileSize(this.path);
    if (size < this.next || size - this.next > DEFAULT_TAIL_BYTES) {
      this.next = Math.max(0, size - DEFAULT_TAIL_BYTES);
      return true;
    }
    if (size === this.next) return false;
    const r = await scanLines(this.path, this.next, (l) => this.line(l));
    this.next = r.next;
    return false;
  }

  /**
   * Follows appends as they are written: reads when the file system reports a change and
   * every `pollMs` in case it does not (the file not there yet, replaced, a file system
   * without notifications). The report comes from `changes` — a view passes the session's
   * change feed (TeamSession.watchFiles), which watches the transcripts' folder once for
   * every panel — or, without it, from a watch on the file itself (the CLI's `log -f`).
   * Returns the function that stops following.
   */
  follow(opts: {
    pollMs: number; onReplaced?: () => void; onError?: (err: Error) => void;
    changes?: (onChange: () => void) => Promise<{ dispose(): void }>;
  }): () => void {
    let stopped = false;
    let watcher: FSWatcher | undefined;
    let feed: { dispose(): void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    const unwatch = (): void => {
      watcher?.close();
      watcher = undefined;
    };
    const arm = (): void => {
      if (watcher || feed || stopped || opts.changes) return;
      try {
        watcher = watch(this.path, { persistent: false }, () => void read());
        watcher.on('error', unwatch);
      } catch {
        watcher = undefined; // not there yet: the poll tries again
      }
    };
    const read = coalesce(async () => {
      if (stopped) return;
      try {
        if (await this.more()) {
          unwatch(); // the watch is on the file that was replaced
          if (!stopped) opts.onReplaced?.();
        }
      } catch (err) {
        opts.onError?.(err as Error);
      }
    });
    // Without a watch (no file yet, or no notifications here) the poll is the only way: often.
    const tick = (): void => {
      timer = setTimeout(() => {
        arm();
        void read().then(() => { if (!stopped) tick(); });
      }, watcher || feed ? opts.pollMs : Math.min(opts.pollMs, UNWATCHED_POLL_MS));
    };
    void opts.changes?.(() => void read()).then((sub) => {
      if (stopped) sub.dispose();
      else feed = sub;
    }, (err: unknown) => opts.onError?.(err as Error));
    arm();
    tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      unwatch();
      feed?.dispose();
      feed = undefined;
    };
  }

  /** Each line is checked against the transcript's schema (src/shared/schemas/transcripts.ts) first. */
  private line(l: Line): void {
    const parsed = 'bad' in l ? null : parseTranscriptLine(l.value);
    const changes = !parsed ? this.builder.badLine(l.offset)
      : parsed.ok ? this.builder.entry(parsed.line)
        : parsed.reason === null ? [] : this.builder.badLine(l.offset, parsed.reason);
    for (const c of changes) this.onChange(c);
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return (await fh.stat()).size;
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

/** Every item of a whole transcript, in order, read in chunks (the export). */
export async function allItems(path: string, agent: string): Promise<TranscriptItem[]> {
  const items = new Map<string, TranscriptItem>();
  const f = new TranscriptFollower(path, agent, (c) => {
    if (c.op === 'put') items.set(c.item.key, c.item);
    else items.delete(c.key);
  });
  await f.load(Number.MAX_SAFE_INTEGER);
  return [...items.values()];
}
