// The errors a model call ends with. Callers branch on `kind` (and on isAbortError), never on
// message text; messages are written for the person at the keyboard and never contain the key.
import { APIUserAbortError } from '@anthropic-ai/sdk';
import { redact } from './redact';

export type ModelErrorKind =
  | 'auth'        // key missing, rejected (401) or not permitted (403): ask for a new key
  | 'model'       // the model does not exist (404 not_found_error): fix agentTeams.model
  | 'config'      // base URL unusable (not a URL, or no Messages API behind it)
  | 'request'     // the API refused this request (400 and other 4xx): retrying will not help
  | 'rate_limit'  // 429 after every retry
  | 'overloaded'  // 529 / overloaded_error after every retry
  | 'server'      // 5xx after every retry
  | 'network';    // connection failures, timeouts, stalled or truncated streams after every retry

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly kind: ModelErrorKind;
  /** HTTP status of the last failure, when there was a response. */
  readonly status?: number;
  /** Requests made before giving up. */
  readonly attempts: number;

  constructor(kind: ModelErrorKind, message: string, opts: { status?: number; attempts?: number; cause?: unknown } = {}) {
    super(redact(message), { cause: opts.cause });
    this.kind = kind;
    this.status = opts.status;
    this.attempts = opts.attempts ?? 0;
  }
}

/**
 * A copy of `e` fit to travel as a `cause`: SDK errors carry whatever the server's error body
 * said (a proxy may echo the key) and the raw error graph, so only a redacted name and
 * message go along.
 */
export function redactedCause(e: unknown): Error {
  const src = e instanceof Error ? e : new Error(String(e));
  const copy = new Error(redact(src.message));
  copy.name = src.name;
  copy.stack = redact(src.stack ?? '');
  return copy;
}

/** Thrown when the caller's AbortSignal fires; named AbortError like fetch's own. */
export class ModelAbortError extends Error {
  override readonly name = 'AbortError';
  constructor(message = 'model request aborted') {
    super(message);
  }
}

/** True for any abort: ours, the SDK's, or a DOM/fetch AbortError. */
export function isAbortError(e: unknown): boolean {
  return e instanceof ModelAbortError || e instanceof APIUserAbortError ||
    (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError');
}
