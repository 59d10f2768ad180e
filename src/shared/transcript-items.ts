// What a transcript is made of once read: the items a reader sees, whatever wrote them (the
// transcript file, or live runtime events while an agent works). Produced in src/core/watch,
// shown by the transcript panel and the CLI through the rules in transcript-rows.ts. Every
// string here is already bounded (see the limits below), so no item can flood a view.

export type TranscriptMode = 'summary' | 'normal' | 'verbose';
export const TRANSCRIPT_MODES: readonly TranscriptMode[] = ['summary', 'normal', 'verbose'];

/** Longest agent text or mail kept in one item. */
export const MAX_TEXT_CHARS = 200_000;
/** Longest tool result kept in one item (a 10 MB result keeps its head and a note). */
export const MAX_RESULT_CHARS = 64_000;
/** Longest tool input (JSON) kept in one item. */
export const MAX_INPUT_CHARS = 16_000;

interface Base {
  /** Stable per transcript: later events for the same thing update the item with this key. */
  key: string;
  /** Seconds since the epoch, when known. */
  ts?: number;
}

export type NoticeWhat = 'error' | 'retry' | 'pause' | 'compaction' | 'stop' | 'interrupted' | 'skipped' | 'note' | 'hook';

export type TranscriptItem =
  /** What a person (or the host on their behalf) told this agent: a lead prompt, a spawn prompt. */
  | (Base & { kind: 'prompt'; text: string })
  /** The agent's own words; `streaming` while the model is still sending them. */
  | (Base & { kind: 'text'; text: string; streaming?: boolean })
  /** A tool call and, once it ran, its result. `input` is JSON text. */
  | (Base & { kind: 'tool'; tool: string; input: string; result?: string; resultChars?: number; isError?: boolean; running: boolean })
  /** Mail delivered to this agent, with its sender and type (provenance). */
  | (Base & { kind: 'mail_in'; from: string; type: string; content: string; requestId?: string; approve?: boolean })
  | (Base & { kind: 'notice'; what: NoticeWhat; level: 'info' | 'warning' | 'error'; text: string; detail?: string })
  /** Tokens of one model call (a round). */
  | (Base & { kind: 'usage'; input: number; output: number; cacheRead: number; cacheWrite: number });

export type ItemKind = TranscriptItem['kind'];

/** Cuts `s` to `max` characters with a note saying how much was left out. */
export function bounded(s: string, max: number): string {
  if (s.length <= max) return s;
  // Do not split a surrogate pair.
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}\n… (${s.length - end} more characters not shown)`;
}

// CSI, OSC (BEL or ST terminated) and two-byte escapes; then the other C0 controls but tab/newline.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Terminal colours and control characters removed, for views that are not terminals. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '').replace(/\r\n?/g, '\n').replace(CONTROL, '');
}
