// Reading append-only JSON-lines files (inboxes, transcripts) from a byte offset, streaming:
// time is linear in what is read and memory bounded by the longest line kept, whatever the
// file holds. A line longer than `maxLineBytes` (a 256 MB inbox with no newline) is skipped
// with a report instead of being gathered; a line not yet terminated is left for the next
// read. A line damaged by a writer killed mid-write is reported and skipped; a record
// appended right after the damage is recovered, not lost.
import { open } from 'node:fs/promises';
import { ioFault } from '../util/io-faults';
import { reportProblem } from '../util/problems';

export interface LineRecord {
  /** Byte offset of the start of the line. */
  offset: number;
  value: unknown;
}

export interface ReadResult {
  records: LineRecord[];
  /** Offset just past the last complete line read (or skipped). */
  nextOffset: number;
}

export interface ScanOptions {
  /** Stop at the first line end after reading this many bytes (the rest is for the next read). */
  maxBytes?: number;
  /** Longer lines are skipped and reported (default 64 MiB). */
  maxLineBytes?: number;
}

/** The marker every record we write starts with, used to recover after a torn line. */
const RECORD_START = '{"id":"';
const CHUNK = 1 << 20;
export const MAX_LINE_BYTES = 64 << 20;

function parseLine(line: string, path: string, offset: number): unknown | undefined {
  try {
    return JSON.parse(line);
  } catch {
    const at = line.lastIndexOf(RECORD_START);
    let recovered: unknown;
    if (at > 0) {
      try {
        recovered = JSON.parse(line.slice(at));
      } catch {
        recovered = undefined;
      }
    }
    reportProblem({
      path,
      message: `malformed line at byte ${offset} skipped${recovered !== undefined ? ' (record after the damage recovered)' : ''}`,
    });
    return recovered;
  }
}

/**
 * Calls `onRecord` for each complete line from `fromOffset` on, as it is read; returns the
 * offset after the last line consumed. Blank, malformed and over-long lines are skipped.
 */
export async function scanJsonLines(
  path: string, fromOffset: number, onRecord: (r: LineRecord) => void, opts: ScanOptions = {},
): Promise<number> {
  const maxBytes = opts.maxBytes ?? Infinity;
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  let fh;
  try {
    ioFault('read', path);
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fromOffset;
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    let pos = fromOffset;
    // The line being gathered: its start, its pieces so far (kept as a list, so a long line
    // costs one copy, not one per chunk), or `skipping` once it is too long to keep.
    let lineStart = fromOffset;
    let parts: Buffer[] = [];
    let partLen = 0;
    let skipping = false;
    const tooLong = () => reportProblem({ path, message: `line at byte ${lineStart} is longer than ${maxLine} bytes: skipped` });
    while (pos < size) {
      if (pos - fromOffset >= maxBytes && partLen === 0 && !skipping) break;
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - pos));
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const data = buf.subarray(0, bytesRead);
      let segStart = 0;
      for (;;) {
        const nl = data.indexOf(10, segStart);
        if (nl < 0) break;
        if (!skipping && partLen + nl - segStart > maxLine) tooLong();
        else if (!skipping) {
          const line = partLen ? Buffer.concat([...parts, data.subarray(segStart, nl)]).toString('utf8') : data.toString('utf8', segStart, nl);
          if (line.trim() !== '') {
            const value = parseLine(line, path, lineStart);
            if (value !== undefined) onRecord({ offset: lineStart, value });
          }
        }
        parts = [];
        partLen = 0;
        skipping = false;
        segStart = nl + 1;
        lineStart = pos + segStart;
      }
      if (!skipping && segStart < bytesRead) {
        parts.push(data.subarray(segStart));
        partLen += bytesRead - segStart;
        if (partLen > maxLine) {
          tooLong();
          skipping = true;
          parts = [];
          partLen = 0;
        }
      }
      pos += bytesRead;
    }
    // An over-long line is consumed as far as it goes; an ordinary unfinished one waits.
    return skipping ? pos : lineStart;
  } finally {
    await fh.close();
  }
}

/** Reads complete lines from `fromOffset` (see scanJsonLines). */
export async function readJsonLines(path: string, fromOffset = 0, maxBytes = Infinity): Promise<ReadResult> {
  const records: LineRecord[] = [];
  const nextOffset = await scanJsonLines(path, fromOffset, (r) => records.push(r), { maxBytes });
  return { records, nextOffset };
}

/**
 * The offset of the last line that contains `marker` at `at` bytes from its start, reading
 * backwards from the end (or from the line starting at `before`) in chunks (bounded memory,
 * and time only for what follows it); 0 when there is none.
 */
export async function lastLineWith(path: string, marker: string, at: number, before?: number): Promise<number> {
  let fh;
  try {
    ioFault('read', path);
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  try {
    const needle = Buffer.from(marker);
    const size = (await fh.stat()).size;
    const overlap = at + needle.length;
    // Lines starting before `before` only: the line there is ended by the newline just before it.
    let end = before === undefined ? size : Math.max(0, before - 1);
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const len = Math.min(size, end + overlap) - start;
      const buf = Buffer.allocUnsafe(len);
      const { bytesRead } = await fh.read(buf, 0, len, start);
      const data = buf.subarray(0, bytesRead);
      // Candidate line starts in [start, end): after a newline, or the file's first byte.
      let i = Math.min(end - start, data.length) - 1;
      for (;;) {
        i = i >= 0 ? data.lastIndexOf(10, i) : -1;
        if (i < 0 && start !== 0) break;
        const lineAt = i + 1;
        if (data.subarray(lineAt + at, lineAt + at + needle.length).equals(needle)) return start + lineAt;
        if (i < 0) break;
        i--;
      }
      end = start;
    }
    return 0;
  } finally {
    await fh.close();
  }
}
