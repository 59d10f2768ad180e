// An agent's conversation, persisted as it grows (.team/transcripts/<name>.jsonl) so it
// resumes after a reload or crash. Each record is one message, or a reset written by
// compaction. A record carrying `inbox_cursor` marks the mail it delivered: writing the
// message and its cursor in one line is what makes mail delivery exactly-once in effect.
// `event` records (per-round usage, errors, retries, pauses) are for readers of the
// transcript (the transcript view, `agent-teams log`); restoring skips them. The lines'
// schema is src/shared/schemas/transcripts.ts; every reader checks a line against it.
import { randomUUID } from 'node:crypto';
import type { HookRunRecord } from '../hooks/hooks';
import type { ModelMessage } from '../model';
import { appendJsonLine, scanJsonLines } from '../team/jsonl';
import { lastLineWith } from '../team/jsonl-read';
import { isStale, type Fence } from '../team/fences';
import { parseTranscriptLine } from '../../shared/schemas/transcripts';
import { reportProblem } from '../util/problems';

/** Seen by readers only; see src/core/watch/transcript-items.ts. */
export type TranscriptEvent =
  | { type: 'usage'; input: number; output: number; cache_read: number; cache_write: number }
  | { type: 'notice'; what: 'error' | 'retry' | 'pause' | 'stop' | 'note'; level: 'info' | 'warning' | 'error'; text: string }
  /** Streamed text of the reply being received, for views in other processes; the stored message replaces it. */
  | { type: 'text'; attempt: number; text: string }
  /** One tool call's result as soon as it is known (the round's message has them all, later). */
  | { type: 'tool_result'; id: string; tool: string; is_error: boolean; text: string; chars: number }
  /** A hook ran for this agent (docs/hooks.md): event, exit code, time, what it said. */
  | HookRunRecord;

/** How often streamed text is written for other processes' views. */
const TEXT_FLUSH_MS = 250;
/** A tool_result event carries at most this much of the result (the message has all of it). */
export const LIVE_RESULT_CHARS = 4000;

/** `epoch`: the fence its writer held (src/core/team/fences.ts); absent before fences existed. */
export type TranscriptEntry =
  | { id: string; kind: 'msg'; ts?: number; message: ModelMessage; inbox_cursor?: number; epoch?: number }
  | { id: string; kind: 'reset'; ts?: number; messages: ModelMessage[]; inbox_cursor?: number; epoch?: number }
  | { id: string; kind: 'event'; ts: number; event: TranscriptEvent; epoch?: number };
type Entry = TranscriptEntry;

const now = (): number => Date.now() / 1000;

export interface Restored {
  messages: ModelMessage[];
  inboxCursor: number;
}

/** The fence a writer holds: its epoch, and the check that it is still the latest. */
export interface WriterFence {
  epoch: number;
  check(): Promise<void>;
}

export class Transcript {
  /** Set once this host took the agent on: every line carries its epoch and is refused after a later fence. */
  fence: WriterFence | null = null;
  private streamed = '';
  private streamAttempt = 0;
  private streamTimer: NodeJS.Timeout | undefined;

  /** `onEntry` hears every line once it is in the file (live views). */
  constructor(readonly path: string, private readonly onEntry?: (e: TranscriptEntry) => void) {}

  /** A piece of streamed reply text: written in batches, so a view in another process follows it. */
  streamText(text: string, attempt: number): void {
    if (attempt !== this.streamAttempt) this.flushStream();
    this.streamAttempt = attempt;
    this.streamed += text;
    this.streamTimer ??= setTimeout(() => this.flushStream(), TEXT_FLUSH_MS);
  }

  /** The reply ended (stored next, or failed): text not written yet is dropped. */
  endStream(): void {
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
    this.streamed = '';
  }

  private flushStream(): void {
    const text = this.streamed;
    this.endStream();
    if (text) void this.note({ type: 'text', attempt: this.streamAttempt, text });
  }

  append(message: ModelMessage, inboxCursor?: number): Promise<void> {
    const e: Entry = { id: randomUUID(), kind: 'msg', ts: now(), message, ...(inboxCursor !== undefined ? { inbox_cursor: inboxCursor } : {}) };
    return this.write(e);
  }

  /** A compaction; it carries the mail cursor so far, since restore reads from the last one on. */
  reset(messages: ModelMessage[], inboxCursor?: number): Promise<void> {
    return this.write({ id: randomUUID(), kind: 'reset', ts: now(), messages, ...(inboxCursor !== undefined ? { inbox_cursor: inboxCursor } : {}) });
  }

  /** Records an event for readers; a failure to write it never stops the agent. */
  note(event: TranscriptEvent): Promise<void> {
    return this.write({ id: randomUUID(), kind: 'event', ts: now(), event }).catch(() => undefined);
  }

  private async write(e: Entry): Promise<void> {
    const f = this.fence;
    // The line's place in the file is fixed now, while the fence is checked: lines keep the
    // order they were written in (a streamed-text line never lands after its stored reply).
    await appendJsonLine(this.path, f ? f.check().then(() => ({ ...e, epoch: f.epoch })) : e);
    if (f) e.epoch = f.epoch;
    this.onEntry?.(e);
  }

  /**
   * The conversation since the last compaction: read from the last reset record on (found by
   * reading backwards from the end), so resuming costs what the context holds, not the
   * whole history.
   */
  async restore(fences: readonly Fence[] = []): Promise<Restored> {
    // A compaction written by a host that had lost the agent does not count: the one before it does.
    let from = await lastLineWith(this.path, RESET_MARKER, RESET_MARKER_AT);
    while (from > 0 && fences.length && isStale(fences, from, await epochAt(this.path, from))) {
      from = await lastLineWith(this.path, RESET_MARKER, RESET_MARKER_AT, from);
    }
    let messages: ModelMessage[] = [];
    let inboxCursor = 0;
    await scanJsonLines(this.path, from, (r) => {
      // Events are for readers. An entry is checked against the transcript's schema: a damaged
      // one is reported and skipped, never sent to the model.
      if ((r.value as { kind?: unknown } | null)?.kind === 'event') return;
      const parsed = parseTranscriptLine(r.value);
      if (!parsed.ok) {
        if (parsed.reason !== null) reportProblem({ path: this.path, message: `line at byte ${r.offset} is not a transcript entry (${parsed.reason}): skipped` });
        return;
      }
      const e = parsed.line as Entry;
      if (isStale(fences, r.offset, e.epoch)) return;
      if (e.kind === 'msg') messages.push(e.message);
      else if (e.kind === 'reset') messages = [...e.messages];
      else return;
      if (typeof e.inbox_cursor === 'number') inboxCursor = Math.max(inboxCursor, e.inbox_cursor);
    });
    return { messages, inboxCursor };
  }
}

/** The epoch of the line at `offset`. */
async function epochAt(path: string, offset: number): Promise<number | undefined> {
  let epoch: number | undefined;
  await scanJsonLines(path, offset, (r) => {
    epoch ??= (r.value as Entry | null)?.epoch ?? 0;
  }, { maxBytes: 1 });
  return epoch;
}

/** A reset record as written above: `{"id":"<36-character uuid>","kind":"reset",…`. */
const RESET_MARKER = '","kind":"reset"';
const RESET_MARKER_AT = '{"id":"'.length + 36;
