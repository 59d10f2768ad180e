// A scripted fake of an OpenAI-compatible Chat Completions endpoint on 127.0.0.1, for the
// `openai:` provider's tests (docs/models.md). It takes the same scripts as the fake Messages
// API (test/fake-api: per-agent turns, the agent named by its system prompt) and answers them
// the way OpenAI streams: `data: {chunk}` lines with text deltas, tool calls whose arguments
// arrive in pieces, a finish reason, a usage chunk when asked for, then `data: [DONE]`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { presentedKey, recordRequest, Recorder } from '../fake-api/recorder';
import { normalizeTurn, regexMatcher, ScriptBook } from '../fake-api/script';
import type { AgentUsage, ErrorTurn, RecordedRequest, ReplyTurn, StaticTurn, TurnSpec } from '../fake-api/types';

export interface FakeOpenAI {
  /** The client's baseURL (with /v1). */
  readonly url: string;
  script(agent: string, ...turns: TurnSpec[]): void;
  requests(agent?: string): RecordedRequest[];
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  usage(agent?: string): AgentUsage;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  /** When set, any other bearer key gets 401 (a missing key always does). */
  apiKey?: string;
  /** Usage chunks are never sent (as many compatible servers do). */
  noUsage?: boolean;
}

const ERROR_CODES: Record<number, string> = { 400: 'invalid_request_error', 401: 'invalid_api_key', 404: 'model_not_found', 429: 'rate_limit_exceeded' };

function writeError(res: ServerResponse, t: ErrorTurn): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (t.retryAfter !== undefined) headers['retry-after'] = String(t.retryAfter);
  const code = ERROR_CODES[t.status] ?? 'server_error';
  res.writeHead(t.status, headers).end(JSON.stringify({ error: { message: t.message ?? `fake ${t.status}`, type: code, code, param: null } }));
}

const tokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

/** The chunks of one streamed reply (without usage and [DONE]). */
function chunks(turn: ReplyTurn, model: string, id: string): unknown[] {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const out: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  let calls = 0;
  for (const b of turn.content) {
    if (b.type === 'text') {
      for (let i = 0; i < b.text.length; i += 12) out.push({ ...base, choices: [{ index: 0, delta: { content: b.text.slice(i, i + 12) }, finish_reason: null }] });
      continue;
    }
    const index = calls++;
    const args = b.partialJson ?? JSON.stringify(b.input);
    const third = Math.ceil(args.length / 3) || 1;
    out.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: b.id ?? `call_${id}_${index}`, type: 'function', function: { name: b.name, arguments: '' } }] }, finish_reason: null }] });
    for (let i = 0; i < args.length; i += third) out.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(i, i + third) } }] }, finish_reason: null }] });
  }
  const finish = turn.stopReason === 'max_tokens' ? 'length' : calls ? 'tool_calls' : 'stop';
  out.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const book = new ScriptBook();
  const rec = new Recorder();
  const identify = regexMatcher();
  let seq = 0;

  async function turnFor(spec: TurnSpec, r: RecordedRequest): Promise<StaticTurn> {
    while (typeof spec === 'function') spec = await spec(r);
    return normalizeTurn(spec);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const r = recordRequest(rec, req, res, ++seq, raw, identify);
    const { body } = r;
    const { key } = presentedKey(req.headers);
    const outcome = (o: string) => { r.outcome = o; rec.changed(); };
    const bad: ErrorTurn | undefined = !key || (opts.apiKey !== undefined && key !== opts.apiKey)
      ? { type: 'error', status: 401, message: 'Incorrect API key provided' } : undefined;
    const turn = bad ?? await turnFor(book.next(r.agent), r);
    if (turn.type === 'error') return void (writeError(res, turn), outcome(`error:${turn.status}`));
    if (turn.type === 'reset') return void (outcome('reset'), req.socket.destroy());
    if (turn.type === 'hang') return void outcome('hang');
    const id = `chatcmpl-${r.seq}`;
    const events = chunks(turn, String(body?.model ?? 'fake'), id);
    const input = tokens(JSON.stringify(body?.messages ?? []) + JSON.stringify(body?.tools ?? []));
    const output = tokens(JSON.stringify(turn.content));
    const usage = { input, output, cacheRead: 0, cacheWrite: 0 };
    r.usage = usage;
    rec.addUsage(r.agent, usage);
    if (body?.stream_options?.include_usage && !opts.noUsage && turn.usage !== 'missing') {
      events.push({ id, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const shape = turn.stream ?? {};
    for (let i = 0; i < events.length; i++) {
      if (shape.stallAfter !== undefined && i >= shape.stallAfter) return void outcome('stall');
      if (shape.errorAfter !== undefined && i >= shape.errorAfter) {
        res.end(`data: ${JSON.stringify({ error: { message: shape.errorType ?? 'The server had an error while processing your request.', type: 'server_error' } })}\n\n`);
        return void outcome('error-event');
      }
      if (shape.delayMs) await sleep(shape.delayMs);
      if (res.destroyed) return void outcome('gone');
      res.write(`data: ${JSON.stringify(events[i])}\n\n`);
    }
    res.end('data: [DONE]\n\n');
    r.finishedAt = Date.now();
    outcome('reply');
  }

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/chat/completions') return void writeError(res, { type: 'error', status: 404, message: `Not found: ${path}` });
      handle(req, res, Buffer.concat(parts).toString('utf8')).catch(() => res.destroy());
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    script: (agent, ...turns) => book.add(agent, turns),
    requests: (agent) => (agent === undefined ? [...rec.all] : rec.all.filter((x) => x.agent === agent)),
    waitForRequest: (pred, timeoutMs = 5000) => rec.waitFor(pred, timeoutMs, () => rec.all.map((x) => `#${x.seq} ${x.agent} ${x.outcome ?? '…'}`).join(', ') || 'none'),
    usage: (agent) => rec.usageOf(agent),
    close: () => new Promise<void>((ok) => {
      rec.abandon();
      server.close(() => ok());
      server.closeAllConnections();
    }),
  };
}
