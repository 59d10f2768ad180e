// Append-only JSON-lines files, shared by inboxes and transcripts.
// Appends from one process are queued per file and coalesced into single O_APPEND writes,
// which keeps per-sender order and gives throughput; appends from several processes
// interleave whole lines. Readers resume from a byte offset and never consume a line that
// is not yet terminated. A line damaged by a writer killed mid-write is reported and
// skipped; a record appended right after the damage is recovered, not lost.
import { appendFile, open } from 'node:fs/promises';
import { reportProblem } from '../util/problems';

interface Pending {
  text: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

const queues = new Map<string, Pending[]>();

async function flush(path: string): Promise<void> {
  const q = queues.get(path);
  if (!q) return;
  while (q.length > 0) {
    const batch = q.splice(0, q.length);
    try {
      await appendFile(path, batch.map((p) => p.text).join(''));
      for (const p of batch) p.resolve();
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
  queues.delete(path);
}

/** Appends one JSON record as a line; resolves once it is in the file. */
export function appendJsonLine(path: string, record: unknown): Promise<void> {
  const text = JSON.stringify(record) + '\n';
  return new Promise<void>((resolve, reject) => {
    const q = queues.get(path);
    if (q) {
      q.push({ text, resolve, reject });
      return;
    }
    queues.set(path, [{ text, resolve, reject }]);
    void flush(path);
  });
}

export interface LineRecord {
  /** Byte offset of the start of the line. */
  offset: number;
  value: unknown;
}

export interface ReadResult {
  records: LineRecord[];
  /** Offset just past the last complete line read. */
  nextOffset: number;
}

/** The marker every record we write starts with, used to recover after a torn line. */
const RECORD_START = '{"id":"';

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

const CHUNK = 1 << 20;

/** Reads complete lines from `fromOffset`. Blank and malformed lines are skipped. */
export async function readJsonLines(path: string, fromOffset = 0, maxBytes = Infinity): Promise<ReadResult> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], nextOffset: fromOffset };
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    const end = Math.min(size, fromOffset + maxBytes);
    const records: LineRecord[] = [];
    let pos = fromOffset;
    let carry = Buffer.alloc(0);
    let carryStart = fromOffset;
    while (pos < end) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - pos));
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let lineStart = 0;
      for (;;) {
        const nl = data.indexOf(10, lineStart);
        if (nl < 0) break;
        const line = data.toString('utf8', lineStart, nl);
        const offset = carryStart + lineStart;
        if (line.trim() !== '') {
          const value = parseLine(line, path, offset);
          if (value !== undefined) records.push({ offset, value });
        }
        lineStart = nl + 1;
      }
      carry = Buffer.from(data.subarray(lineStart));
      carryStart += lineStart;
    }
    return { records, nextOffset: carryStart };
  } finally {
    await fh.close();
  }
}
