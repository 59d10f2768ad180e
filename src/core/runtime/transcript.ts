// An agent's conversation, persisted as it grows (.team/transcripts/<name>.jsonl) so it
// resumes after a reload or crash. Each record is one message, or a reset written by
// compaction. A record carrying `inbox_cursor` marks the mail it delivered: writing the
// message and its cursor in one line is what makes mail delivery exactly-once in effect.
import { randomUUID } from 'node:crypto';
import type { ModelMessage } from '../model';
import { appendJsonLine, readJsonLines } from '../team/jsonl';

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

  reset(messages: ModelMessage[]): Promise<void> {
    return appendJsonLine(this.path, { id: randomUUID(), kind: 'reset', messages } satisfies Entry);
  }

  async restore(): Promise<Restored> {
    const { records } = await readJsonLines(this.path);
    let messages: ModelMessage[] = [];
    let inboxCursor = 0;
    for (const r of records) {
      const e = r.value as Entry;
      if (e?.kind === 'msg' && e.message) messages.push(e.message);
      else if (e?.kind === 'reset' && Array.isArray(e.messages)) messages = [...e.messages];
      else continue;
      if (typeof e.inbox_cursor === 'number') inboxCursor = Math.max(inboxCursor, e.inbox_cursor);
    }
    return { messages, inboxCursor };
  }
}
