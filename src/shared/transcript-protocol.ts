// The typed host ↔ transcript-panel protocol. The webview validates what it posts with these
// schemas and the host validates every message again (the panel renders untrusted model
// text, so its messages are input). zod/mini keeps the webview bundle small.
import * as z from 'zod/mini';
import type { TranscriptItem, TranscriptMode } from './transcript-items';

const ref = z.string().check(z.maxLength(64));
const mode = z.enum(['summary', 'normal', 'verbose']);
const requestId = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/));

// ── webview → host ──
export const TranscriptToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), ref, content: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)) }),
  z.object({ type: z.literal('stop'), ref }),
  z.object({ type: z.literal('mode'), mode }),
  z.object({ type: z.literal('decidePlan'), ref, requestId, approve: z.boolean(), feedback: z.string().check(z.maxLength(20_000)) }),
  z.object({ type: z.literal('decideBash'), ref, id: z.string().check(z.regex(/^[a-z0-9_-]{1,64}$/)), allow: z.boolean() }),
  z.object({ type: z.literal('openLink'), href: z.string().check(z.maxLength(2048), z.regex(/^https?:\/\//i)) }),
  z.object({ type: z.literal('showChanges') }),
]);
export type TranscriptToHost = z.infer<typeof TranscriptToHost>;

/** Something waiting for the person at the keyboard, answered inline in the panel. */
export type PendingAsk =
  | { kind: 'plan'; requestId: string; plan: string; createdAt: number }
  | { kind: 'bash'; id: string; command: string };

export interface PanelStatus {
  /** The agent's activity in words ("running bash", "idle", "paused: token budget spent"). */
  activity: string;
  /** Roster status: working | idle | shutdown | unknown. */
  status: string;
  tokens: number;
  /** Cost so far, formatted (`$0.12`, `price unknown` for a model we cannot price). */
  cost: string;
  /** Stop is offered only for an agent this window runs. */
  canStop: boolean;
}

/**
 * How the host sends a transcript it has read (docs/file-formats.md, "Transcripts"): the newest FIRST_ITEMS
 * items as the reset, so the first paint waits for one screenful and not the whole history,
 * then the older ones in chunks of OLDER_CHUNK, oldest first, which the panel puts in front.
 */
export const FIRST_ITEMS = 200;
export const OLDER_CHUNK = 1000;

// ── host → webview ──
export type TranscriptToWebview =
  | { type: 'init'; agent: string; mode: TranscriptMode; trusted: boolean; skippedBytes: number }
  /** New or updated items, in order; `reset` replaces everything shown. */
  | { type: 'items'; reset: boolean; items: TranscriptItem[] }
  /** Items older than everything shown since the reset, in order; `done` on the last chunk. */
  | { type: 'older'; items: TranscriptItem[]; done: boolean }
  | { type: 'remove'; keys: string[] }
  /** A piece of streamed text for the item `key` (appended, never a re-render). */
  | { type: 'delta'; key: string; text: string; restart: boolean }
  | { type: 'status'; status: PanelStatus }
  | { type: 'pending'; asks: PendingAsk[]; planApprover: 'user' | 'lead' }
  | { type: 'mode'; mode: TranscriptMode }
  | { type: 'result'; ref: string; ok: boolean; error?: string };
