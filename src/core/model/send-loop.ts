// What every provider's send() shares (docs/models.md): one attempt after another with capped
// backoff (retry.ts) that a stop interrupts, status for the UI, and text listeners that know
// which attempt they hear; plus the per-call signal that a stall or the agent's stop aborts.
// Each provider supplies only how one attempt is made and how its failures are sorted.
import type { Failure } from './classify';
import { ModelAbortError, ModelError, redactedCause } from './errors';
import { abortableSleep, backoffDelay, type RetryPolicy } from './retry';
import type { ModelStatus, SendRequest, SendResult } from './types';

export interface AttemptContext {
  attempt: number;
  /** The request's onText, bound to this attempt, never throwing. */
  onText?: (delta: string) => void;
  onStreaming(): void;
}

export async function sendWithRetries(
  req: SendRequest, policy: RetryPolicy, clientStatus: ((s: ModelStatus) => void) | undefined,
  once: (ctx: AttemptContext) => Promise<Omit<SendResult, 'attempts'>>, classify: (e: unknown) => Failure,
): Promise<SendResult> {
  const emit = (s: ModelStatus) => {
    // A broken status listener must not break the call it reports on.
    for (const fn of [clientStatus, req.onStatus]) try { fn?.(s); } catch { /* ignored */ }
  };
  for (let attempt = 1; ; attempt++) {
    if (req.signal?.aborted) throw new ModelAbortError();
    emit({ state: 'requesting', attempt });
    try {
      const onText = req.onText ? (delta: string) => { try { req.onText!(delta, attempt); } catch { /* ignored */ } } : undefined;
      const result = await once({ attempt, onText, onStreaming: () => emit({ state: 'streaming' }) });
      return { ...result, attempts: attempt };
    } catch (e) {
      if (req.signal?.aborted || e instanceof ModelAbortError) throw new ModelAbortError();
      const f = classify(e);
      if (!f.retryable || attempt > policy.maxRetries) {
        const tail = f.retryable ? `; gave up after ${attempt} attempts` : '';
        throw new ModelError(f.kind, f.message + tail, { status: f.status, attempts: attempt, cause: redactedCause(e) });
      }
      const inMs = backoffDelay(attempt, policy, f.retryAfterMs);
      emit({ state: 'retrying', attempt, inMs, reason: f.reason });
      await abortableSleep(inMs, req.signal);
    }
  }
}

/**
 * One request's own signal, aborted by a stall (no data for `idleMs` once armed) or relayed from
 * the agent's. Not AbortSignal.any: on Node 20 every call left a WeakRef in the agent's
 * long-lived signal that was never dropped (a 10-minute soak grew the heap ~45 bytes a call).
 * `aborted` rejects with ModelAbortError the moment the agent's signal fires.
 */
export class CallSignal {
  private readonly stall = new AbortController();
  private readonly call = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onAbort: (() => void) | undefined;
  private readonly relay = (): void => this.call.abort();
  readonly aborted: Promise<never>;

  constructor(private readonly agent: AbortSignal | undefined, private readonly idleMs: number) {
    this.stall.signal.addEventListener('abort', this.relay, { once: true });
    agent?.addEventListener('abort', this.relay, { once: true });
    if (agent?.aborted) this.call.abort();
    this.aborted = new Promise<never>((_, reject) => {
      this.onAbort = () => reject(new ModelAbortError());
      agent?.addEventListener('abort', this.onAbort, { once: true });
    });
    this.aborted.catch(() => {}); // only read when a race is run on it
  }

  get signal(): AbortSignal {
    return this.call.signal;
  }

  /** True when the stall timer (not the agent) ended the call. */
  get stalled(): boolean {
    return this.stall.signal.aborted && !this.agent?.aborted;
  }

  /** Data arrived: the stall timer starts over. */
  arm(): void {
    if (this.disposed) return; // a late byte of a finished body
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.stall.abort(), this.idleMs);
  }

  /** Takes back everything hung on the agent's signal. */
  private disposed = false;

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.agent?.removeEventListener('abort', this.onAbort);
    this.agent?.removeEventListener('abort', this.relay);
  }
}
