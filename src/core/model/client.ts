// The model client the agent loops call: one streamed Messages request per send(), with our
// own retry loop (the SDK's is off: it would honour a retry-after of hours and its sleep does
// not report progress), a stall detector (the SDK's timeout stops at the response headers),
// prompt-cache breakpoints, and abort that rejects at once wherever the call is.
import Anthropic from '@anthropic-ai/sdk';
import { withCacheBreakpoints } from './cache-breakpoints';
import { classifyFailure, StreamStalledError, type FailureContext } from './classify';
import { isAbortError, ModelAbortError, ModelError, redactedCause } from './errors';
import { registerSecret } from './redact';
import { abortableSleep, backoffDelay, DEFAULT_RETRY, type RetryPolicy } from './retry';
import type { AssistantBlock, ModelClient, ModelClientOptions, ModelStatus, SendRequest, SendResult } from './types';

const PUBLIC_API = 'https://api.anthropic.com';
const DEFAULT_MAX_TOKENS = 8192;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_STREAM_IDLE_MS = 120_000;

export function createModelClient(opts: ModelClientOptions): ModelClient {
  registerSecret(opts.apiKey);
  const baseURL = opts.baseURL ?? PUBLIC_API;
  const sdk = new Anthropic({
    // Both always explicit: with a key passed in code the SDK reads no env var or credential
    // profile, and with a baseURL it ignores ANTHROPIC_BASE_URL (resolveModelConfig decides).
    apiKey: opts.apiKey,
    baseURL,
    maxRetries: 0,
    timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // The SDK's debug log prints request options; keep it off whatever ANTHROPIC_LOG says.
    logLevel: 'off',
  });
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const ctx: FailureContext = { model: opts.model, baseURL };
  const idleMs = opts.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS;

  async function send(req: SendRequest): Promise<SendResult> {
    const emit = (s: ModelStatus) => {
      // A broken status listener must not break the call it reports on.
      for (const fn of [opts.onStatus, req.onStatus]) try { fn?.(s); } catch { /* ignored */ }
    };
    const prompt = opts.caching ? withCacheBreakpoints(req.system, req.tools, req.messages) : req;
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: opts.model,
      max_tokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: prompt.messages,
      ...(prompt.system?.length ? { system: prompt.system } : {}),
      ...(prompt.tools?.length ? { tools: prompt.tools } : {}),
    };

    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw new ModelAbortError();
      emit({ state: 'requesting', attempt });
      try {
        const onText = req.onText ? (delta: string) => { try { req.onText!(delta, attempt); } catch { /* ignored */ } } : undefined;
        const result = await streamOnce(sdk, params, req.signal, idleMs, () => emit({ state: 'streaming' }), onText);
        return { ...result, attempts: attempt };
      } catch (e) {
        if (req.signal?.aborted || e instanceof ModelAbortError) throw new ModelAbortError();
        const f = classifyFailure(e, ctx);
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

  return { model: opts.model, send };
}

/** One streamed request. Rejects with ModelAbortError the moment `signal` aborts. */
async function streamOnce(
  sdk: Anthropic, params: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal | undefined,
  idleMs: number, onStreaming: () => void, onText?: (delta: string) => void,
): Promise<Omit<SendResult, 'attempts'>> {
  const stall = new AbortController();
  // This request's own signal, aborted by a stall or by the agent's signal. Not
  // AbortSignal.any: on Node 20 every call left a WeakRef in the agent's long-lived signal that
  // was never dropped (a 10-minute soak grew the heap by ~45 bytes a model call).
  const call = new AbortController();
  const relay = (): void => call.abort();
  stall.signal.addEventListener('abort', relay, { once: true });
  signal?.addEventListener('abort', relay, { once: true });
  if (signal?.aborted) call.abort();
  const stream = sdk.messages.stream(params, { signal: call.signal });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), idleMs);
  };
  stream.on('connect', () => { onStreaming(); arm(); });
  stream.on('streamEvent', arm);
  if (onText) stream.on('text', (delta) => onText(delta));

  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ModelAbortError());
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const final = stream.finalMessage();
  final.catch(() => {}); // when the abort wins the race, this rejection has no other reader
  try {
    const msg = await Promise.race([final, aborted]);
    return {
      content: narrow(msg.content),
      stopReason: msg.stop_reason ?? 'end_turn',
      // A proxy may leave counts out; a missing count is 0, never NaN in the roster.
      usage: {
        input: count(msg.usage?.input_tokens),
        output: count(msg.usage?.output_tokens),
        cacheRead: count(msg.usage?.cache_read_input_tokens),
        cacheWrite: count(msg.usage?.cache_creation_input_tokens),
      },
    };
  } catch (e) {
    if (stall.signal.aborted && !signal?.aborted && isAbortError(e)) {
      throw new StreamStalledError(`stream stalled: no data for ${Math.round(idleMs / 1000)} s`);
    }
    throw e;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    signal?.removeEventListener('abort', relay);
    stream.abort(); // no-op once finished; frees the connection otherwise
  }
}

function count(n: number | null | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * Keeps the blocks our agents act on; we request no thinking or server tools. Blank text is
 * dropped: the API refuses it when the message is sent back as part of the conversation.
 */
function narrow(content: Anthropic.ContentBlock[]): AssistantBlock[] {
  const out: AssistantBlock[] = [];
  for (const b of content) {
    if (b.type === 'text') {
      if (b.text.trim()) out.push({ type: 'text', text: b.text });
    }
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
  }
  return out;
}
