// The model client: what the agent loops and the VS Code layer import.
export { createModelClient } from './client';
export { withCacheBreakpoints, type CachedPrompt } from './cache-breakpoints';
export { resolveModelConfig, type ModelConfig, type ModelConfigSources } from './config';
export { isAbortError, ModelAbortError, ModelError, type ModelErrorKind } from './errors';
export { redact, registerSecret } from './redact';
export { backoffDelay, DEFAULT_RETRY, parseRetryAfter, type RetryPolicy } from './retry';
export type * from './types';
export { createModelFactory, failingClient, resolveOpenAIConfig, type OpenAIConfig, type ProviderSources } from './providers';
export { parseModelId, providerOf, type ProviderName } from './provider-id';
export type { LmChatModel, LmHost } from './lm-client';
export type { ChatToolCall, ChatToolDef, ChatTurn } from './chat-convert';
