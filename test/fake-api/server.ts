// A scripted fake of the Anthropic Messages API on 127.0.0.1, for runtime tests, e2e tests
// and benchmarks. Each request is attributed to an agent (from its system prompt), answered
// with that agent's next scripted turn, recorded, and accounted for prompt caching.
// Control endpoints (no auth) let another process script it: see CONTROL below.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { countBreakpoints, MAX_BREAKPOINTS, PromptCacheSim } from './cache-sim';
import { presentedKey, recordRequest, Recorder } from './recorder';
import { buildMessage, outputTokens, sseEvents, writeError, writeJson, writeStream } from './respond';
import { normalizeTurn, regexMatcher, ScriptBook, type AgentMatcher } from './script';
import type { AgentUsage, ErrorTurn, RecordedRequest, ScriptJson, StaticTurn, TurnSpec } from './types';

export interface FakeApiOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Names the calling agent from the request body; default: first group of /You are (\w+)/ in the system prompt. */
  identify?: AgentMatcher;
  /** Initial script. */
  script?: ScriptJson;
  /** A JSON script file, re-read whenever its mtime changes (checked on each request). */
  scriptFile?: string;
  /** When set, any other key gets 401 (a missing key always does). */
  apiKey?: string;
  /** When set, any other model gets the API's 404 not_found_error. */
  knownModels?: string[];
  /** Diagnostics (e.g. process.stderr); silent by default. */
  log?: (line: string) => void;
}

export interface FakeApi {
  readonly port: number;
  /** The SDK's `baseURL` (no `/v1`; the SDK adds `/v1/messages`). */
  readonly url: string;
  /** Appends turns to `agent`'s queue (`*` = any agent whose own queue is empty). */
  script(agent: string, ...turns: TurnSpec[]): void;
  /** The answer once an agent's turns are used up (initially: end_turn, text "done"). */
  setDefault(turn: TurnSpec): void;
  /** Replaces the whole script. */
  load(script: ScriptJson): void;
  /** Recorded requests, in arrival order, optionally of one agent. */
  requests(agent?: string): RecordedRequest[];
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Cumulative usage reported to one agent, or to all agents together. */
  usage(agent?: string): AgentUsage;
  usageByAgent(): Record<string, AgentUsage>;
  /** Forgets requests, usage, the prompt cache and the script. */
  reset(): void;
  /** Stops listening and drops every connection, stalled ones included. */
  close(): Promise<void>;
}

const MAX_FN_DEPTH = 8;

export async function startFakeApi(opts: FakeApiOptions = {}): Promise<FakeApi> {
  const book = new ScriptBook();
  const rec = new Recorder();
  const cache = new PromptCacheSim();
  const log = opts.log ?? (() => {});
  let identify = opts.identify ?? regexMatcher();
  let seq = 0;

  const load = (s: ScriptJson) => {
    book.load(s);
    if (s.agentPattern && !opts.identify) identify = regexMatcher(s.agentPattern);
  };
  if (opts.script) load(opts.script);

  // Single-flight reload, so concurrent requests never load (and so replay) the file twice.
  let fileStamp = '';
  let reloading: Promise<void> | undefined;
  const refreshScriptFile = (): Promise<void> => {
    const file = opts.scriptFile;
    if (!file) return Promise.resolve();
    reloading ??= (async () => {
      try {
        const st = await stat(file);
        const stamp = `${st.mtimeMs}:${st.size}`;
        if (stamp === fileStamp) return;
        const parsed = JSON.parse(await readFile(file, 'utf8')) as ScriptJson;
        fileStamp = stamp;
        load(parsed);
        log(`fake-api: loaded script ${file}`);
      } catch (e) {
        // A half-written file parses next time; keep the last good script meanwhile.
        log(`fake-api: cannot load ${file}: ${(e as Error).message}`);
      }
    })().finally(() => { reloading = undefined; });
    return reloading;
  };

  async function resolveTurn(spec: TurnSpec, r: RecordedRequest): Promise<StaticTurn> {
    for (let depth = 0; typeof spec === 'function'; depth++) {
      if (depth >= MAX_FN_DEPTH) throw new Error('fake-api: turn functions nested too deep');
      spec = await spec(r);
    }
    return normalizeTurn(spec);
  }

  /** Faults the real API would raise before looking at the script. */
  function precheck(r: RecordedRequest, key: string | undefined): ErrorTurn | undefined {
    if (!key) return { type: 'error', status: 401, message: 'x-api-key header is required' };
    if (opts.apiKey !== undefined && key !== opts.apiKey) return { type: 'error', status: 401, message: 'invalid x-api-key' };
    if (!r.body || typeof r.body !== 'object') return { type: 'error', status: 400, message: 'request body is not valid JSON' };
    if (opts.knownModels && !opts.knownModels.includes(r.body.model)) {
      return { type: 'error', status: 404, message: `model: ${r.body.model}` };
    }
    const n = countBreakpoints(r.body);
    if (n > MAX_BREAKPOINTS) {
      return { type: 'error', status: 400, message: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${n}.` };
    }
    return undefined;
  }

  async function handleMessages(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    await refreshScriptFile();
    const r = recordRequest(rec, req, res, ++seq, raw, identify);
    const { body } = r;
    const { key } = presentedKey(req.headers);
    const setOutcome = (o: string) => { r.outcome = o; rec.changed(); };

    const early = precheck(r, key);
    const turn = early ?? await resolveTurn(book.next(r.agent), r);
    if (res.destroyed) return void setOutcome('gone');
    switch (turn.type) {
      case 'error':
        writeError(res, turn);
        return void setOutcome(`error:${turn.status}`);
      case 'reset':
        setOutcome('reset');
        req.socket.destroy();
        return;
      case 'hang':
        return void setOutcome('hang');
      case 'reply': {
        const msg = buildMessage(turn, String(body.model ?? 'fake-model'), r.seq);
        const usage = { ...cache.account(body), output: outputTokens(msg) };
        r.usage = usage;
        rec.addUsage(r.agent, usage);
        if (!r.stream) {
          if (turn.stream?.delayMs) await new Promise((ok) => setTimeout(ok, turn.stream?.delayMs));
          writeJson(res, msg, turn.usage === 'missing' ? null : usage);
          r.finishedAt = Date.now();
          return void setOutcome('reply');
        }
        const end = await writeStream(res, sseEvents(msg, turn.usage === 'missing' ? null : usage), turn.stream);
        if (end === 'done') r.finishedAt = Date.now();
        return void setOutcome(end === 'done' ? 'reply' : end);
      }
    }
  }

  // CONTROL (for a test driving the standalone process):
  //   POST /_control/script  body: ScriptJson   replace the script
  //   POST /_control/append  body: {agents}     append turns
  //   GET  /_control/requests[?agent=name]      recorded requests
  //   GET  /_control/usage                      {total, agents}
  //   POST /_control/reset                      forget requests, usage, cache, script
  function handleControl(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, v: unknown): void => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v)); };
    try {
      const route = `${req.method} ${url.pathname}`;
      if (route === 'POST /_control/script') { load(JSON.parse(raw)); return json(200, { ok: true }); }
      if (route === 'POST /_control/append') {
        const s = JSON.parse(raw) as ScriptJson;
        for (const [agent, turns] of Object.entries(s.agents ?? {})) book.add(agent, turns);
        return json(200, { ok: true });
      }
      if (route === 'GET /_control/requests') {
        const agent = url.searchParams.get('agent');
        return json(200, agent ? rec.all.filter((r) => r.agent === agent) : rec.all);
      }
      if (route === 'GET /_control/usage') return json(200, { total: rec.usageOf(), agents: rec.usageByAgent() });
      if (route === 'POST /_control/reset') { api.reset(); return json(200, { ok: true }); }
      json(404, { error: `unknown control route ${route}` });
    } catch (e) {
      json(400, { error: (e as Error).message });
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {}); // a client that resets mid-upload is not our failure
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0];
      let work: Promise<void> | void;
      if (path.startsWith('/_control/')) work = handleControl(req, res, raw);
      else if (req.method === 'POST' && path === '/v1/messages') work = handleMessages(req, res, raw);
      else work = writeError(res, { type: 'error', status: 404, message: `Not found: ${req.method} ${path}` });
      Promise.resolve(work).catch((e: Error) => {
        log(`fake-api: ${e.stack ?? e.message}`);
        if (!res.headersSent) writeError(res, { type: 'error', status: 500, message: `fake-api: ${e.message}` });
        else res.destroy();
      });
    });
  });
  server.on('clientError', (_e, socket) => socket.destroy());

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => { server.off('error', fail); ok(); });
  });
  const port = (server.address() as AddressInfo).port;

  const api: FakeApi = {
    port,
    url: `http://127.0.0.1:${port}`,
    script: (agent, ...turns) => book.add(agent, turns),
    setDefault: (turn) => book.setDefault(turn),
    load,
    requests: (agent) => (agent === undefined ? [...rec.all] : rec.all.filter((r) => r.agent === agent)),
    waitForRequest: (pred, timeoutMs = 5000) =>
      rec.waitFor(pred, timeoutMs, () => `got ${rec.all.map((r) => `#${r.seq} ${r.agent} ${r.outcome ?? '…'}`).join(', ') || 'none'}; script left ${JSON.stringify(book.remaining())}`),
    usage: (agent) => rec.usageOf(agent),
    usageByAgent: () => rec.usageByAgent(),
    reset: () => { rec.clear(); cache.clear(); book.load({}); seq = 0; },
    close: () => new Promise<void>((ok) => {
      rec.abandon();
      server.close(() => ok());
      server.closeAllConnections();
    }),
  };
  return api;
}
