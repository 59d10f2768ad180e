// Sorting SDK failures into what to do next: retry (and how soon), or stop with a ModelError
// whose kind and message tell the user what to fix.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { ModelErrorKind } from './errors';
import { parseRetryAfter } from './retry';

export interface Failure {
  kind: ModelErrorKind;
  retryable: boolean;
  /** Short, for the "retrying in 8 s (reason)" line. */
  reason: string;
  /** Full, for the final error. */
  message: string;
  status?: number;
  retryAfterMs?: number;
}

export interface FailureContext {
  model: string;
  baseURL: string;
  /** What a rejected key tells the user to do; default Anthropic's. */
  keyHint?: string;
  /** The setting that names the endpoint; default Anthropic's. */
  endpointHint?: string;
  /** The path a 404 means is missing; default /v1/messages. */
  apiPath?: string;
}

/** An HTTP error response, whichever SDK read it. `modelMissing`: the 404 says the model does not exist. */
export interface HttpFailure {
  status: number;
  apiMessage: string;
  modelMissing: boolean;
  headers?: { get(name: string): string | null };
}

/** Raised by the client itself when a stream goes silent; classified as a network failure. */
export class StreamStalledError extends Error {
  override readonly name = 'StreamStalledError';
}

const NETWORK_CODES = /ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+/;
const NETWORK_TEXT = /terminated|socket|other side closed|network|fetch failed|stream ended without producing|request ended without sending/i;

/** The most telling low-level description in an error's cause chain (e.g. "ECONNREFUSED"). */
export function networkDetail(e: unknown): string | undefined {
  const chain: Array<{ code?: unknown; message?: unknown }> = [];
  for (let cur = e; cur && typeof cur === 'object' && chain.length < 6; cur = (cur as { cause?: unknown }).cause) chain.push(cur);
  for (const c of chain) {
    if (typeof c.code === 'string' && NETWORK_CODES.test(c.code)) return c.code;
    const m = typeof c.message === 'string' ? NETWORK_CODES.exec(c.message) : null;
    if (m) return m[0];
  }
  for (const c of chain) if (typeof c.message === 'string' && NETWORK_TEXT.test(c.message)) return c.message;
  return undefined;
}

function byType(type: string | null, apiMessage: string): Failure | undefined {
  switch (type) {
    case 'overloaded_error': return { kind: 'overloaded', retryable: true, reason: 'API overloaded', message: `API overloaded: ${apiMessage}` };
    case 'rate_limit_error': return { kind: 'rate_limit', retryable: true, reason: 'rate limited', message: `rate limited: ${apiMessage}` };
    case 'api_error': return { kind: 'server', retryable: true, reason: 'server error', message: `server error: ${apiMessage}` };
    default: return undefined;
  }
}

/** Sorts an HTTP error response (any provider's: docs/models.md). */
export function fromHttpStatus(e: HttpFailure, ctx: FailureContext): Failure {
  const { status, apiMessage } = e;
  const base = { status };
  if (status === 401) {
    return { ...base, kind: 'auth', retryable: false, reason: 'API key rejected',
      message: `API key rejected (401): ${apiMessage}. ${ctx.keyHint ?? 'Set a valid key with "Agent Teams: Set API Key" or ANTHROPIC_API_KEY.'}` };
  }
  if (status === 403) {
    return { ...base, kind: 'auth', retryable: false, reason: 'API key not permitted',
      message: `API key not permitted (403): ${apiMessage}.` };
  }
  if (status === 404) {
    return e.modelMissing
      ? { ...base, kind: 'model', retryable: false, reason: 'model not found',
        message: `model "${ctx.model}" not found (404): ${apiMessage}. Check the agentTeams.model setting.` }
      : { ...base, kind: 'config', retryable: false, reason: 'no API at this URL',
        message: `no ${ctx.apiPath ? 'Chat Completions' : 'Messages'} API at ${ctx.baseURL}${ctx.apiPath ?? '/v1/messages'} (404). Check ${ctx.endpointHint ?? 'agentTeams.baseUrl / ANTHROPIC_BASE_URL'}.` };
  }
  if (status === 429) {
    return { ...base, kind: 'rate_limit', retryable: true, reason: 'rate limited (429)', message: `rate limited (429): ${apiMessage}`, retryAfterMs: parseRetryAfter(e.headers) };
  }
  if (status === 529) {
    return { ...base, kind: 'overloaded', retryable: true, reason: 'API overloaded (529)', message: `API overloaded (529): ${apiMessage}`, retryAfterMs: parseRetryAfter(e.headers) };
  }
  if (status === 408 || status === 409 || status >= 500) {
    const kind = status === 408 ? 'network' : 'server';
    return { ...base, kind, retryable: true, reason: `server error (${status})`, message: `server error (${status}): ${apiMessage}`, retryAfterMs: parseRetryAfter(e.headers) };
  }
  return { ...base, kind: 'request', retryable: false, reason: `request rejected (${status})`, message: `request rejected (${status}): ${apiMessage}` };
}

export function classifyFailure(e: unknown, ctx: FailureContext): Failure {
  if (e instanceof StreamStalledError) return { kind: 'network', retryable: true, reason: 'stream stalled', message: e.message };
  if (e instanceof APIConnectionTimeoutError) return { kind: 'network', retryable: true, reason: 'timed out', message: `request to ${ctx.baseURL} timed out` };
  if (e instanceof APIConnectionError) {
    const detail = networkDetail(e) ?? e.message;
    return { kind: 'network', retryable: true, reason: `network error (${detail})`, message: `cannot reach ${ctx.baseURL}: ${detail}` };
  }
  if (e instanceof APIError) {
    if (e.status !== undefined) return fromHttpStatus({ status: e.status, apiMessage: e.apiMessage ?? e.message, modelMissing: e.type === 'not_found_error', headers: e.headers }, ctx);
    // An `event: error` inside a stream: no status, only the error type.
    const t = byType(e.type, e.apiMessage ?? e.message);
    if (t) return t;
    return { kind: 'request', retryable: false, reason: 'API error', message: `API error: ${e.apiMessage ?? e.message}` };
  }
  const detail = networkDetail(e);
  if (detail) return { kind: 'network', retryable: true, reason: `network error (${detail})`, message: `connection to ${ctx.baseURL} failed: ${detail}` };
  const msg = e instanceof Error ? e.message : String(e);
  // Anything else is a bug or a malformed answer; retrying would repeat it.
  return { kind: 'request', retryable: false, reason: 'unexpected error', message: `unexpected model client error: ${msg}` };
}
