// Retry timing: capped exponential backoff with jitter, the server's retry-after honoured up to
// the cap, and a sleep that a stop interrupts at once.
import { ModelAbortError } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt (so maxRetries + 1 requests at most). */
  maxRetries: number;
  baseDelayMs: number;
  /** No single wait is longer, whatever the server asks for. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 30_000 };

/**
 * Wait before retry number `retry` (1-based). Equal jitter (half fixed, half random) spreads
 * teammates that failed together without ever collapsing to zero. A retry-after is a floor,
 * but capped: a teammate frozen for an hour is worse than one more 429.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, retryAfterMs?: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  const wanted = retryAfterMs !== undefined && retryAfterMs > jittered ? retryAfterMs : jittered;
  return Math.round(Math.min(policy.maxDelayMs, wanted));
}

/** Milliseconds asked for by `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const secs = Number.parseFloat(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with ModelAbortError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelAbortError());
    const onAbort = () => { clearTimeout(timer); reject(new ModelAbortError()); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
