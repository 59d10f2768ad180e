// Transcripts, `.team/transcripts/<name>.jsonl` (docs/file-formats.md, "Transcripts"): one
// entry per line — a message (`msg`), a compaction (`reset`) or an event for readers. Every
// reader (resuming an agent, the transcript view, `agent-teams log`/`export`) checks a line
// here before using it; one that fails is skipped and reported, never fatal, and the file is
// never changed. Loose, like the other team files: fields of newer versions survive.
import { z } from 'zod';

/** A content block: its `type`, and whatever the Messages API puts beside it. */
export interface ContentBlock { type: string; [k: string]: unknown }
// Checked by one function rather than a schema per block: a panel checks every line of a
// transcript's last 16 MB when it opens, and this keeps the check near JSON.parse's cost.
const isBlocks = (v: unknown): v is ContentBlock[] =>
  Array.isArray(v) && v.every((b) => b !== null && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string');

/** A message in the Messages API's own shape. */
export const TranscriptMessage = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.custom<ContentBlock[]>(isBlocks, 'a string, or content blocks each with a "type"')]),
});

const envelope = {
  /** Ours are UUIDs; a line without one is still read. */
  id: z.string().min(1).optional(),
  /** Seconds since the epoch when the line was written (older lines may lack it). */
  ts: z.number().optional(),
  /** The fence its writer held (docs/file-formats.md, "Fences"). */
  epoch: z.number().int().optional(),
};
/** The inbox offset delivered with this entry. */
const inboxCursor = z.number().int().nonnegative().optional();

export const TranscriptLine = z.discriminatedUnion('kind', [
  z.looseObject({ ...envelope, kind: z.literal('msg'), message: TranscriptMessage, inbox_cursor: inboxCursor }),
  /** A compaction: replaces everything before it. */
  z.looseObject({ ...envelope, kind: z.literal('reset'), messages: z.array(TranscriptMessage), inbox_cursor: inboxCursor }),
  z.looseObject({ ...envelope, kind: z.literal('event'), event: z.looseObject({ type: z.string() }) }),
]);
export type TranscriptLine = z.infer<typeof TranscriptLine>;

const count = z.number().optional();
/** The events readers show, by `type`; an event of another type is skipped (a newer version's). */
export const TRANSCRIPT_EVENTS = {
  /** After every model call. */
  usage: z.looseObject({ type: z.literal('usage'), input: count, output: count, cache_read: count, cache_write: count }),
  notice: z.looseObject({ type: z.literal('notice'), text: z.string(), what: z.string().optional(), level: z.string().optional() }),
  /** Streamed reply text, for views in other processes; the stored `msg` replaces it. */
  text: z.looseObject({ type: z.literal('text'), text: z.string(), attempt: count }),
  /** One tool call's result as soon as it ends, cut to 4,000 characters (`chars`: the whole length). */
  tool_result: z.looseObject({
    type: z.literal('tool_result'), id: z.string(), text: z.string(), tool: z.string().optional(), is_error: z.boolean().optional(), chars: count,
  }),
  /** A hook ran for this agent (docs/hooks.md). */
  hook: z.looseObject({
    type: z.literal('hook'), command: z.string(), event: z.string().optional(), exit_code: z.number().nullable().optional(),
    ms: count, timed_out: z.boolean().optional(), blocked: z.boolean().optional(), output: z.string().optional(),
  }),
} as const;

/**
 * A parsed line of a transcript: `line` when it is an entry; otherwise `reason` says why it
 * was skipped — null for a kind of line this version does not know (read by a newer one), which
 * is skipped quietly.
 */
export type ParsedTranscriptLine = { ok: true; line: TranscriptLine } | { ok: false; reason: string | null };

function why(error: z.ZodError): string {
  const i = error.issues[0];
  return i ? `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}` : 'invalid';
}

/** Checks one JSON value read from a transcript line. */
export function parseTranscriptLine(value: unknown): ParsedTranscriptLine {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== 'msg' && kind !== 'reset' && kind !== 'event') {
    return { ok: false, reason: typeof kind === 'string' ? null : 'no "kind"' };
  }
  const r = TranscriptLine.safeParse(value);
  if (!r.success) return { ok: false, reason: why(r.error) };
  if (r.data.kind === 'event') {
    const type = r.data.event.type;
    const schema = Object.hasOwn(TRANSCRIPT_EVENTS, type) ? TRANSCRIPT_EVENTS[type as keyof typeof TRANSCRIPT_EVENTS] : undefined;
    const e = schema?.safeParse(r.data.event);
    if (e && !e.success) return { ok: false, reason: `event "${type}": ${why(e.error)}` };
  }
  return { ok: true, line: r.data };
}
