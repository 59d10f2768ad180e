// An agent's conversation, persisted as it grows (.team/transcripts/<name>.jsonl) so it
// resumes after a reload or crash. Each record is one message, or a reset written by
// compaction. A record carrying `inbox_cursor` marks the mail it delivered: writing the
// message and its cursor in one line is what makes mail delivery exactly-once in effect.
import { randomUUID } from 'node:crypto';
import type { ModelMessage } from '../model';
import { appendJsonLine, scanJsonLines } from '../team/jsonl';
import { lastLineWith } from '../team/jsonl-read';

type Entry =
  | { id: string; kind: 'msg'; message: ModelMessage; inbox_cursor?: number }
  | { id: string; kind: 'reset'; messages: ModelMessage[]; inbox_cursor?: number };

export interface Restored {
  messages: ModelMessage[];
  inboxCursor: number;
}

export class Transcript {
  constructor(readonly path: string) {}

  append(message: ModelMessage, inboxCursor?: number): Promise<void> {
    const e: Entry = { id: randomUUID(), kind: 'msg', message, ...(inboxCursor !== undefined ? { inbox_cursor: inboxCursor } : {}) };
    return appendJsonLine(this.path, e);
  }

  /** A compaction; it carries the mail cursor so far, since restore reads from the last one on. */
  reset(messages: ModelMessage[], inboxCursor?: number): Promise<void> {
    const e: Entry = { id: randomUUID(), kind: 'reset', messages, ...(inboxCursor !== undefined ? { inbox_cursor: inboxCursor } : {}) };
    return appendJsonLine(this.path, e);
  }

  /**
   * The conversation since the last compaction: read from the last reset record on (found by
   * reading backwards from the end), so resuming costs what the context holds, not the
   * whole history.
   */
  async restore(): Promise<Restored> {
    const from = await lastLineWith(this.path, RESET_MARKER, RESET_MARKER_AT);
    let messages: ModelMessage[] = [];
    let inboxCursor = 0;
    await scanJsonLines(this.path, from, (r) => {
      const e = r.value as Entry;
      if (e?.kind === 'msg' && e.message) messages.push(e.message);
      else if (e?.kind === 'reset' && Array.isArray(e.messages)) messages = [...e.messages];
      else return;
      if (typeof e.inbox_cursor === 'number') inboxCursor = Math.max(inboxCursor, e.inbox_cursor);
    });
    return { messages, inboxCursor };
  }
}

/** A reset record as written above: `{"id":"<36-character uuid>","kind":"reset",…`. */
const RESET_MARKER = '","kind":"reset"';
const RESET_MARKER_AT = '{"id":"'.length + 36;
