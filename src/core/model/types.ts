// The model client's vocabulary. Request shapes are the SDK's param types (what the agent loop
// builds and persists); results are narrowed to the blocks our agents use.
import type Anthropic from '@anthropic-ai/sdk';
import type { ProviderName } from './provider-id';
import type { RetryPolicy } from './retry';

export type ModelMessage = Anthropic.MessageParam;
export type ModelTool = Anthropic.Tool;
export type SystemPrompt = string | Anthropic.TextBlockParam[];

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface ModelUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The provider reported no usage for this call (the counts are 0 because unknown): docs/models.md. */
  unreported?: true;
}

/** What a UI shows while a call is in flight. */
export type ModelStatus =
  | { state: 'requesting'; attempt: number }
  | { state: 'streaming' }
  /** `attempt`: the retry about to happen (1 = first retry); `inMs`: the wait before it. */
  | { state: 'retrying'; attempt: number; inMs: number; reason: string };

export interface SendRequest {
  system?: SystemPrompt;
  tools?: ModelTool[];
  messages: ModelMessage[];
  signal?: AbortSignal;
  /** Per-call status listener, in addition to the client's. */
  onStatus?: (s: ModelStatus) => void;
  /**
   * Text as it streams in. `attempt` counts from 1; a retry streams the reply again from the
   * start, so a listener drops what an earlier attempt showed when the attempt changes.
   */
  onText?: (delta: string, attempt: number) => void;
}

export interface SendResult {
  content: AssistantBlock[];
  stopReason: Anthropic.StopReason;
  usage: ModelUsage;
  /** Requests it took (1 = no retry). */
  attempts: number;
}

export interface ModelClientOptions {
  apiKey: string;
  /** Without it: https://api.anthropic.com (the SDK's env fallback is not used; see resolveModelConfig). */
  baseURL?: string;
  model: string;
  /** Default 8192. */
  maxTokens?: number;
  retry?: Partial<RetryPolicy>;
  caching: boolean;
  onStatus?: (s: ModelStatus) => void;
  /** Time to response headers per attempt; default 120 s. */
  timeoutMs?: number;
  /** A stream silent this long counts as dropped and is retried; default 120 s. */
  streamIdleMs?: number;
}

export interface ModelClient {
  /** As the agent was given it, with its provider prefix when it has one. */
  readonly model: string;
  /** Default anthropic (docs/models.md). */
  readonly provider?: ProviderName;
  send(req: SendRequest): Promise<SendResult>;
  /**
   * Before an agent is spawned on it: throws a ModelError saying why the model cannot serve an
   * agent (no key, no such model, no tool calling). Absent: nothing to check before the first call.
   */
  preflight?(signal?: AbortSignal): Promise<void>;
  /** The model's context window in tokens, when the provider says (compaction is sized for it). */
  contextWindow?(): number | undefined;
}
