// Writing answers in the wire format of the Messages API: error envelopes, whole messages
// (non-streaming) and SSE streams, including streams that misbehave on purpose.
import type { ServerResponse } from 'node:http';
import { approxTokens } from './cache-sim';
import { errorTypeFor } from './script';
import type { ErrorTurn, ReplyTurn, StreamShape, TokenUsage } from './types';

type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; partialJson?: string };

export interface WireMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: WireBlock[];
  stop_reason: string;
  stop_sequence: null;
}

export function buildMessage(turn: ReplyTurn, model: string, seq: number): WireMessage {
  const content: WireBlock[] = turn.content.map((b, i) =>
    b.type === 'text' ? { type: 'text', text: b.text } : {
      type: 'tool_use', id: b.id ?? `toolu_fake_${seq}_${i}`, name: b.name, input: b.input ?? {},
      ...(b.partialJson !== undefined ? { partialJson: b.partialJson } : {}),
    });
  const stop = turn.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return { id: `msg_fake_${seq}`, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null };
}

export function outputTokens(msg: WireMessage): number {
  return Math.max(1, approxTokens(JSON.stringify(msg.content)));
}

function wireUsage(u: TokenUsage) {
  return {
    input_tokens: u.input, output_tokens: u.output,
    cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cacheRead,
  };
}

export function writeError(res: ServerResponse, turn: ErrorTurn): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}` };
  if (turn.retryAfter !== undefined) headers['retry-after'] = String(turn.retryAfter);
  const type = turn.errorType ?? errorTypeFor(turn.status);
  const body = { type: 'error', error: { type, message: turn.message ?? defaultMessage(turn.status) } };
  res.writeHead(turn.status, headers).end(JSON.stringify(body));
}

function defaultMessage(status: number): string {
  switch (status) {
    case 401: return 'invalid x-api-key';
    case 403: return 'permission denied';
    case 404: return 'not found';
    case 429: return 'rate limited';
    case 529: return 'Overloaded';
    default: return status >= 500 ? 'Internal server error' : 'invalid request';
  }
}

/** The message as the wire carries it (without the fake's own fields). */
function onWire(msg: WireMessage): WireMessage {
  return { ...msg, content: msg.content.map((b) => (b.type === 'tool_use' ? { type: b.type, id: b.id, name: b.name, input: b.input } : b)) };
}

export function writeJson(res: ServerResponse, msg: WireMessage, usage: TokenUsage | null): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...onWire(msg), usage: usage ? wireUsage(usage) : {} }));
}

/** Splits a string into `n` roughly equal non-empty pieces (fewer if it is shorter). */
function pieces(s: string, n: number): string[] {
  if (s.length <= 1) return [s];
  const size = Math.ceil(s.length / Math.min(n, s.length));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** The SSE events of a streamed message, in order. */
/** `usage` null: usage objects without token counts. */
export function sseEvents(msg: WireMessage, usage: TokenUsage | null): Array<[string, unknown]> {
  const ev: Array<[string, unknown]> = [];
  ev.push(['message_start', { type: 'message_start', message: { ...onWire(msg), content: [], stop_reason: null, usage: usage ? wireUsage({ ...usage, output: 1 }) : {} } }]);
  ev.push(['ping', { type: 'ping' }]);
  msg.content.forEach((b, index) => {
    if (b.type === 'text') {
      ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      for (const t of pieces(b.text, Math.ceil(b.text.length / 16)))
        ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }]);
    } else {
      ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }]);
      for (const j of pieces(b.partialJson ?? JSON.stringify(b.input), 3))
        ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: j } }]);
    }
    ev.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  ev.push(['message_delta', { type: 'message_delta', delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: usage ? wireUsage(usage) : {} }]);
  ev.push(['message_stop', { type: 'message_stop' }]);
  return ev;
}

export type StreamEnd = 'done' | 'stall' | 'reset' | 'error-event' | 'gone';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * Streams `events` with the given misbehaviour. Resolves once it has written everything it
 * will write; a stalled stream resolves 'stall' and leaves the response open (close() ends it).
 */
export async function writeStream(res: ServerResponse, events: Array<[string, unknown]>, shape: StreamShape = {}): Promise<StreamEnd> {
  const gone = () => res.destroyed || res.writableEnded;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  for (let i = 0; ; i++) {
    if (shape.stallAfter !== undefined && i >= shape.stallAfter) return 'stall';
    if (shape.resetAfter !== undefined && i >= shape.resetAfter) {
      // Give the written events a moment to reach the client, then drop the connection hard.
      await sleep(20);
      res.socket?.resetAndDestroy(); // RST, not FIN: what a dropped connection looks like
      return 'reset';
    }
    if (shape.errorAfter !== undefined && i >= shape.errorAfter) {
      const type = shape.errorType ?? 'overloaded_error';
      res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: type } })}\n\n`);
      return 'error-event';
    }
    if (i >= events.length) break;
    if (shape.pings && i === shape.pings.after) {
      for (const until = Date.now() + shape.pings.forMs; Date.now() < until && !gone();) {
        await sleep(shape.pings.everyMs);
        if (!gone()) res.write(`event: ping\ndata: ${JSON.stringify({ type: 'ping' })}\n\n`);
      }
    }
    if (shape.delayMs) await sleep(shape.delayMs);
    if (gone()) return 'gone';
    const [name, data] = events[i];
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
  return 'done';
}
