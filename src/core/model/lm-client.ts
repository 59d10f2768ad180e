// The `vscode:` provider's core half (docs/models.md): a model of VS Code's Language Model API,
// reached through an LmHost that the VS Code host injects (core never imports `vscode`). The
// model is selected on first use; the conversation goes over as neutral chat turns
// (chat-convert.ts), which the host maps onto LanguageModelChatMessage parts. Retries, abort
// and status are the shared send loop's. VS Code reports no token usage: every call says so.
import { toChatTools, toChatTurns, type ChatToolCall, type ChatToolDef, type ChatTurn } from './chat-convert';
import { classifyFailure, type Failure } from './classify';
import { ModelError } from './errors';
import { vscodeSelector } from './provider-id';
import { DEFAULT_RETRY, type RetryPolicy } from './retry';
import { CallSignal, sendWithRetries } from './send-loop';
import type { AssistantBlock, ModelClient, ModelStatus, SendRequest, SendResult } from './types';

export interface LmChatModel {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name: string;
  readonly maxInputTokens: number;
  /** False when the model says it cannot call tools; undefined when it does not say. */
  readonly toolCalling?: boolean;
  /** One streamed request; rejects when `signal` aborts. */
  chat(turns: ChatTurn[], tools: ChatToolDef[], signal: AbortSignal, onText: (delta: string) => void): Promise<{ text: string; calls: ChatToolCall[] }>;
}

export interface LmHost {
  /** The chat models VS Code has now (vendor and family narrow it). */
  select(selector: { vendor?: string; family?: string }): Promise<LmChatModel[]>;
  /** Sorts a failure of `chat` (consent declined, quota, model gone); undefined: the generic rules. */
  classify(e: unknown): Failure | undefined;
}

export interface LmClientOptions {
  host: LmHost;
  /** `<vendor>/<family>` (without `vscode:`). */
  model: string;
  retry?: Partial<RetryPolicy>;
  onStatus?: (s: ModelStatus) => void;
  streamIdleMs?: number;
}

/** The words for a model that is not there, with what is (for the transcript and the notification). */
async function noModel(host: LmHost, id: string): Promise<ModelError> {
  const all = await host.select({}).catch(() => [] as LmChatModel[]);
  const have = all.map((m) => `vscode:${m.vendor}/${m.family}`);
  return new ModelError('model', `no VS Code language model matches vscode:${id}${have.length ? `; available: ${[...new Set(have)].join(', ')}` : ': VS Code has no chat models (install or sign in to a provider such as GitHub Copilot)'}`);
}

export function createLmClient(opts: LmClientOptions): ModelClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const ctx = { model: `vscode:${opts.model}`, baseURL: 'VS Code' };
  let chosen: LmChatModel | undefined;

  async function pick(): Promise<LmChatModel> {
    if (chosen) return chosen;
    const found = await opts.host.select(vscodeSelector(opts.model));
    if (!found.length) throw await noModel(opts.host, opts.model);
    const m = found[0]!;
    if (m.toolCalling === false) throw new ModelError('model', `vscode:${opts.model} (${m.name}) cannot call tools, and every agent works through tools: pick another model`);
    return (chosen = m);
  }

  async function send(req: SendRequest): Promise<SendResult> {
    const model = await pick();
    const turns = toChatTurns(req.system, req.messages);
    const tools = toChatTools(req.tools);
    return sendWithRetries(req, policy, opts.onStatus, async (a) => {
      const call = new CallSignal(req.signal, opts.streamIdleMs ?? 120_000);
      try {
        a.onStreaming();
        call.arm();
        const work = model.chat(turns, tools, call.signal, (d) => { call.arm(); a.onText?.(d); });
        work.catch(() => {});
        const r = await Promise.race([work, call.aborted]);
        const content: AssistantBlock[] = [];
        if (r.text.trim()) content.push({ type: 'text', text: r.text });
        for (const c of r.calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
        return {
          content, stopReason: r.calls.length ? 'tool_use' : 'end_turn',
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, unreported: true },
        };
      } finally {
        call.dispose();
      }
    }, (e) => opts.host.classify(e) ?? classifyFailure(e, ctx));
  }

  return {
    model: `vscode:${opts.model}`, provider: 'vscode', send,
    preflight: async () => { await pick(); },
    contextWindow: () => chosen?.maxInputTokens,
  };
}
