// Sorting the `openai` client's failures the way classify.ts sorts Anthropic's (docs/models.md):
// the same kinds, retry rules and wording, with the OpenAI key's and endpoint's names.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { classifyFailure, fromHttpStatus, networkDetail, StreamStalledError, type Failure, type FailureContext } from './classify';

export const OPENAI_HINTS = {
  keyHint: 'Set a valid key with "Agent Teams: Set OpenAI API Key" or OPENAI_API_KEY.',
  endpointHint: 'agentTeams.openai.baseUrl / OPENAI_BASE_URL',
  apiPath: '/chat/completions',
} as const;

export function classifyOpenAIFailure(e: unknown, ctx: FailureContext): Failure {
  if (e instanceof StreamStalledError) return classifyFailure(e, ctx);
  if (e instanceof APIConnectionTimeoutError) return { kind: 'network', retryable: true, reason: 'timed out', message: `request to ${ctx.baseURL} timed out` };
  if (e instanceof APIConnectionError) {
    const detail = networkDetail(e) ?? e.message;
    return { kind: 'network', retryable: true, reason: `network error (${detail})`, message: `cannot reach ${ctx.baseURL}: ${detail}` };
  }
  if (e instanceof APIError) {
    const body = (e.error ?? {}) as { message?: unknown };
    const apiMessage = typeof body.message === 'string' ? body.message : e.message;
    if (e.status !== undefined) {
      const modelMissing = e.code === 'model_not_found' || /model/i.test(apiMessage);
      return fromHttpStatus({ status: e.status, apiMessage, modelMissing, headers: e.headers }, ctx);
    }
    // An error sent inside the stream, after a 200: the server gave up mid-answer.
    return { kind: 'server', retryable: true, reason: 'error mid-stream', message: `the server failed mid-answer: ${apiMessage}` };
  }
  return classifyFailure(e, ctx);
}
