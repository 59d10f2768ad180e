// The model client: what the agent loops and the VS Code layer import.
export { createModelClient } from './client';
export { withCacheBreakpoints, type CachedPrompt } from './cache-breakpoints';
export { resolveModelConfig, type ModelConfig, type ModelConfigSources } from './config';
export { isAbortError, ModelAbortError, ModelError, type ModelErrorKind } from './errors';
export { redact, registerSecret } from './redact';
export { backoffDelay, DEFAULT_RETRY, parseRetryAfter, type RetryPolicy } from './retry';
export type * from './types';
