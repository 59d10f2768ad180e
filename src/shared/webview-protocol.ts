// The typed host ↔ inbox-webview protocol. Both directions are discriminated unions; the
// webview validates what it posts with these schemas, and the host validates every message it
// receives again (a webview is a renderer of untrusted model text, so its messages are input).
// zod/mini keeps the webview bundle small (the full zod namespace is ~450 kB minified).
import * as z from 'zod/mini';
import { NAME_RE } from './names';
import type { Message, RequestKind, RequestStatus } from './schemas';

const ref = z.string().check(z.maxLength(64));
const name = z.string().check(z.regex(NAME_RE));

// ── webview → host ──
export const WebviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), ref, to: name, content: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)) }),
  z.object({
    type: z.literal('decide'), ref, requestId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)),
    approve: z.boolean(), feedback: z.string().check(z.maxLength(20_000)),
  }),
  z.object({ type: z.literal('openLink'), href: z.string().check(z.maxLength(2048), z.regex(/^https?:\/\//i)) }),
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

// ── host → webview ──
export interface ParticipantInfo {
  name: string;
  role: string;
  status: 'working' | 'idle' | 'shutdown';
}

export interface RequestState {
  request_id: string;
  kind: RequestKind;
  status: RequestStatus;
  from: string;
  to: string;
  responded_by?: string;
}

export type HostToWebview =
  | { type: 'init'; trusted: boolean; planApprover: 'user' | 'lead' }
  /** `reset`: replaces everything shown (first load); otherwise the messages are new. */
  | { type: 'messages'; reset: boolean; messages: Message[] }
  | { type: 'participants'; participants: ParticipantInfo[] }
  | { type: 'requests'; requests: RequestState[] }
  /** Show the threads of `name` (Open Inbox {name}). */
  | { type: 'focus'; name?: string }
  /** Outcome of a `send` or `decide` with the same ref. */
  | { type: 'result'; ref: string; ok: boolean; error?: string };

export function threadKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}
