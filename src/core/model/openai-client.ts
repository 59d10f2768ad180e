// The `openai:` provider (docs/models.md): an OpenAI-compatible Chat Completions endpoint
// through the `openai` npm client, streamed, with tools. The agent loop's conversation is
// converted at this edge (chat-convert.ts) and the answer comes back as the loop's blocks;
// retries, stall detection and abort are the shared send loop's (send-loop.ts). No prompt
// caching is asked for (the server may cache on its own: its cached tokens count as cache reads).
import OpenAI from 'openai';
import { parseArguments, toChatTools, toChatTurns, type ChatTurn } from './chat-convert';
import { StreamStalledError, type FailureContext } from './classify';
import { isAbortError } from './errors';
import { classifyOpenAIFailure, OPENAI_HINTS } from './openai-classify';
import { registerSecret } from './redact';
import { DEFAULT_RETRY, type RetryPolicy } from './retry';
import { CallSignal, sendWithRetries, type AttemptContext } from './send-loop';
import type { AssistantBlock, ModelClient, ModelStatus, SendRequest, SendResult } from './types';

export const OPENAI_PUBLIC_API = 'https://api.openai.com/v1';

export interface OpenAIClientOptions {
  apiKey: string;
  /** Without it: the public OpenAI API. Includes the version path (…/v1). */
  baseURL?: string;
  /** The id sent to the server (no `openai:` prefix). */
  model: string;
  maxTokens?: number;
  retry?: Partial<RetryPolicy>;
  onStatus?: (s: ModelStatus) => void;
  timeoutMs?: number;
  streamIdleMs?: number;
}

type Params = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

export function toOpenAIMessages(turns: ChatTurn[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  return turns.map((t): OpenAI.Chat.ChatCompletionMessageParam => {
    switch (t.role) {
      case 'system': return { role: 'system', content: t.text };
      case 'user': return { role: 'user', content: t.text };
      case 'tool': return { role: 'tool', tool_call_id: t.callId, content: t.isError ? `Error: ${t.text}` : t.text };
      case 'assistant': return {
        role: 'assistant', content: t.text || null,
        ...(t.calls.length ? { tool_calls: t.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.input) } })) } : {}),
      };
    }
  });
}

export function createOpenAIClient(opts: OpenAIClientOptions): ModelClient {
  registerSecret(opts.apiKey);
  const baseURL = (opts.baseURL ?? OPENAI_PUBLIC_API).replace(/\/+$/, '');
  const sdk = new OpenAI({ apiKey: opts.apiKey, baseURL, maxRetries: 0, timeout: opts.timeoutMs ?? 120_000, logLevel: 'off' });
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const ctx: FailureContext = { model: `openai:${opts.model}`, baseURL, ...OPENAI_HINTS };
  const idleMs = opts.streamIdleMs ?? 120_000;

  function send(req: SendRequest): Promise<SendResult> {
    const tools = toChatTools(req.tools);
    const params: Params = {
      model: opts.model,
      messages: toOpenAIMessages(toChatTurns(req.system, req.messages)),
      stream: true,
      stream_options: { include_usage: true },
      ...(tools.length ? { tools: tools.map((t) => ({ type: 'function' as const, function: t })) } : {}),
      ...(opts.maxTokens ? { max_completion_tokens: opts.maxTokens } : {}),
    };
    return sendWithRetries(req, policy, opts.onStatus, (a) => streamOnce(sdk, params, req.signal, idleMs, a), (e) => classifyOpenAIFailure(e, ctx));
  }

  return { model: `openai:${opts.model}`, provider: 'openai', send };
}

interface PartialCall { id: string; name: string; args: string }

async function streamOnce(sdk: OpenAI, params: Params, signal: AbortSignal | undefined, idleMs: number, a: AttemptContext): Promise<Omit<SendResult, 'attempts'>> {
  const call = new CallSignal(signal, idleMs);
  const work = (async () => {
    const stream = await sdk.chat.completions.create(params, { signal: call.signal });
    a.onStreaming();
    call.arm();
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    const calls: PartialCall[] = [];
    for await (const chunk of stream) {
      call.arm();
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const d = choice.delta;
      if (d?.content) {
        text += d.content;
        a.onText?.(d.content);
      }
      for (const tc of d?.tool_calls ?? []) {
        const c = (calls[tc.index] ??= { id: '', name: '', args: '' });
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name += tc.function.name;
        if (tc.function?.arguments) c.args += tc.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    return { text, finish, usage, calls };
  })();
  work.catch(() => {}); // when the abort wins the race, this rejection has no other reader
  try {
    const r = await Promise.race([work, call.aborted]);
    const content: AssistantBlock[] = [];
    if (r.text.trim()) content.push({ type: 'text', text: r.text });
    r.calls.forEach((c, i) => {
      if (c) content.push({ type: 'tool_use', id: c.id || `call_${i}`, name: c.name, input: parseArguments(c.args) });
    });
    const cached = r.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    return {
      content,
      stopReason: r.finish === 'length' ? 'max_tokens' : content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      // A server that reports no usage (many compatible ones) is said to, never counted as 0 spent.
      usage: r.usage
        ? { input: Math.max(0, (r.usage.prompt_tokens ?? 0) - cached), output: r.usage.completion_tokens ?? 0, cacheRead: cached, cacheWrite: 0 }
        : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, unreported: true },
    };
  } catch (e) {
    if (call.stalled && isAbortError(e)) throw new StreamStalledError(`stream stalled: no data for ${Math.round(idleMs / 1000)} s`);
    throw e;
  } finally {
    call.dispose();
  }
}
