// The model client the agent loops call: one streamed Messages request per send(), with our
// own retry loop (the SDK's is off: it would honour a retry-after of hours and its sleep does
// not report progress), a stall detector (the SDK's timeout stops at the response headers),
// prompt-cache breakpoints, and abort that rejects at once wherever the call is.
import Anthropic from '@anthropic-ai/sdk';
import { withCacheBreakpoints } from './cache-breakpoints';
import { classifyFailure, StreamStalledError, type FailureContext } from './classify';
import { isAbortError } from './errors';
import { registerSecret } from './redact';
import { DEFAULT_RETRY, type RetryPolicy } from './retry';
import { CallSignal, sendWithRetries } from './send-loop';
import { bytesAreLife } from './stream-life';
import type { AssistantBlock, ModelClient, ModelClientOptions, SendRequest, SendResult } from './types';

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
    const prompt = opts.caching ? withCacheBreakpoints(req.system, req.tools, req.messages) : req;
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: opts.model,
      max_tokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: prompt.messages,
      ...(prompt.system?.length ? { system: prompt.system } : {}),
      ...(prompt.tools?.length ? { tools: prompt.tools } : {}),
    };
    return sendWithRetries(req, policy, opts.onStatus,
      (a) => streamOnce(sdk, params, req.signal, idleMs, a.onStreaming, a.onText), (e) => classifyFailure(e, ctx));
  }

  return { model: opts.model, provider: 'anthropic', send };
}

/** One streamed request. Rejects with ModelAbortError the moment `signal` aborts. */
async function streamOnce(
  sdk: Anthropic, params: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal | undefined,
  idleMs: number, onStreaming: () => void, onText?: (delta: string) => void,
): Promise<Omit<SendResult, 'attempts'>> {
  const call = new CallSignal(signal, idleMs);
  // Every byte of the body (the API's pings too, which the SDK drops) restarts the watchdog.
  const stream = sdk.messages.stream(params, { signal: call.signal, middleware: [bytesAreLife(() => call.arm())] });
  stream.on('connect', () => { onStreaming(); call.arm(); });
  stream.on('streamEvent', () => call.arm());
  if (onText) stream.on('text', (delta) => onText(delta));

  const final = stream.finalMessage();
  final.catch(() => {}); // when the abort wins the race, this rejection has no other reader
  try {
    const msg = await Promise.race([final, call.aborted]);
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
    if (call.stalled && isAbortError(e)) {
      throw new StreamStalledError(`stream stalled: no data for ${Math.round(idleMs / 1000)} s`);
    }
    throw e;
  } finally {
    call.dispose();
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
