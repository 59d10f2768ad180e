// The model client through the real SDK against the fake API: streaming, retries, aborts,
// error kinds, caching and key hygiene.
import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import {
  backoffDelay, createModelClient, isAbortError, ModelError, parseRetryAfter, redact, resolveModelConfig,
  withCacheBreakpoints, type ModelClientOptions, type ModelMessage, type ModelStatus, type ModelTool,
} from '../src/core/model';
import { DEFAULT_SETTINGS } from '../src/core/runtime/types';
import { fault, reply, shaped, startFakeApi, toolUse, type FakeApi } from './fake-api';

const KEY = 'sk-ant-api03-model-client-test-key-XYZ';
const FAST = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 40 };
const SYSTEM = 'You are alice, a teammate on team demo.';
const hello: ModelMessage[] = [{ role: 'user', content: 'hello' }];

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(() => assert.fail('expected a rejection'), (e: Error) => e);
}

describe('model client', () => {
  let api: FakeApi;
  before(async () => { api = await startFakeApi(); });
  after(() => api.close());
  beforeEach(() => api.reset());

  const client = (o: Partial<ModelClientOptions> = {}) =>
    createModelClient({ apiKey: KEY, baseURL: api.url, model: 'claude-test', caching: false, retry: FAST, ...o });

  test('text arrives piece by piece as it streams; a retry starts over with the next attempt number', async () => {
    const words = 'A reply long enough to come in several pieces over the stream.';
    api.script('alice', shaped(words, { errorAfter: 4 }), reply(words));
    const pieces: Array<[string, number]> = [];
    const r = await client().send({ system: SYSTEM, messages: hello, onText: (d, attempt) => pieces.push([d, attempt]) });
    const first = pieces.filter(([, a]) => a === 1).map(([d]) => d).join('');
    const second = pieces.filter(([, a]) => a === 2).map(([d]) => d).join('');
    assert.ok(first.length > 0 && words.startsWith(first) && first !== words, `a partial first attempt: ${first}`);
    assert.equal(second, words);
    assert.ok(pieces.filter(([, a]) => a === 2).length > 1, 'in several pieces');
    assert.deepEqual(r.content, [{ type: 'text', text: words }]);
  });

  test('calls made under an agent\'s long-lived signal leave nothing attached to it', async () => {
    // An agent's signal lives as long as the agent; each model call must take back what it hung
    // on it. AbortSignal.any left a WeakRef per call in the signal's dependants on Node 20.
    const agent = new AbortController();
    const dependants = () => {
      const sym = Object.getOwnPropertySymbols(agent.signal).find((x) => x.description === 'kDependantSignals');
      return sym ? ((agent.signal as unknown as Record<symbol, Set<unknown> | undefined>)[sym]?.size ?? 0) : 0;
    };
    for (let i = 0; i < 20; i++) {
      api.script('alice', reply('ok'));
      await client().send({ system: SYSTEM, messages: hello, signal: agent.signal });
    }
    assert.equal(dependants(), 0, 'signals derived from the agent\'s and kept by it');
    assert.equal(getEventListeners(agent.signal, 'abort').length, 0, 'abort listeners left on the agent\'s signal');
    // And the signal still stops a call.
    api.script('alice', shaped('A reply that streams slowly enough to be stopped midway through.', { delayMs: 200 }));
    const pending = client().send({ system: SYSTEM, messages: hello, signal: agent.signal });
    setTimeout(() => agent.abort(), 100);
    assert.ok(isAbortError(await rejection(pending)));
  });

  test('the default model is one the SDK does not warn about as deprecated', async (t) => {
    const warnings: string[] = [];
    t.mock.method(console, 'warn', (...a: unknown[]) => { warnings.push(a.join(' ')); });
    api.script('alice', reply('ok'));
    await client({ model: DEFAULT_SETTINGS.model }).send({ system: SYSTEM, messages: hello });
    assert.equal(api.requests('alice')[0]?.body.model, DEFAULT_SETTINGS.model);
    assert.deepEqual(warnings.filter((w) => /deprecated/i.test(w)), []);
    // The check can fail: a deprecated id does warn.
    await client({ model: 'claude-sonnet-4-5' }).send({ system: SYSTEM, messages: hello });
    assert.equal(warnings.filter((w) => /deprecated/i.test(w)).length, 1);
  });

  test('streams text and a tool_use whose partial JSON is assembled', async () => {
    api.script('alice', reply('Reading it.', toolUse('read_file', { path: 'a/b.ts', limit: 5, nested: { deep: [1, 2, 3] } }, 'toolu_1')));
    const statuses: ModelStatus[] = [];
    const r = await client({ onStatus: (s) => statuses.push(s) }).send({ system: SYSTEM, messages: hello });
    assert.deepEqual(r.content, [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a/b.ts', limit: 5, nested: { deep: [1, 2, 3] } } },
    ]);
    assert.equal(r.stopReason, 'tool_use');
    assert.equal(r.attempts, 1);
    assert.ok(r.usage.input > 0 && r.usage.output > 0);
    assert.deepEqual(statuses, [{ state: 'requesting', attempt: 1 }, { state: 'streaming' }]);
    const [sent] = api.requests('alice');
    assert.equal(sent.stream, true);
    assert.equal(sent.body.model, 'claude-test');
    assert.equal(sent.body.system, SYSTEM);
  });

  test('529 then success: retried, status says retrying', async () => {
    api.script('alice', fault.overloaded(), 'ok now');
    const statuses: ModelStatus[] = [];
    const r = await client().send({ system: SYSTEM, messages: hello, onStatus: (s) => statuses.push(s) });
    assert.deepEqual(r.content, [{ type: 'text', text: 'ok now' }]);
    assert.equal(r.attempts, 2);
    const retry = statuses.find((s) => s.state === 'retrying');
    assert.ok(retry && retry.state === 'retrying');
    assert.equal(retry.attempt, 1);
    assert.match(retry.reason, /529/);
    assert.ok(retry.inMs >= 0 && retry.inMs <= FAST.maxDelayMs);
    assert.equal(api.requests('alice').length, 2);
  });

  test('429 with retry-after: 3600 waits no longer than the cap', async () => {
    api.script('alice', fault.rateLimit(3600), 'after the wait');
    const statuses: ModelStatus[] = [];
    const t0 = Date.now();
    const r = await client({ retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 150 } })
      .send({ system: SYSTEM, messages: hello, onStatus: (s) => statuses.push(s) });
    assert.equal(r.attempts, 2);
    assert.ok(Date.now() - t0 < 1000);
    assert.deepEqual(statuses.filter((s) => s.state === 'retrying').map((s) => s.state === 'retrying' && s.inMs), [150]);
  });

  test('401: auth error, no retry, key not in the message', async () => {
    api.script('alice', fault.auth(`invalid x-api-key ${KEY}`));
    const e = await rejection(client().send({ system: SYSTEM, messages: hello }));
    assert.ok(e instanceof ModelError);
    assert.equal(e.kind, 'auth');
    assert.equal(e.status, 401);
    assert.match(e.message, /^API key rejected \(401\)/);
    assert.equal(api.requests().length, 1);
    for (const text of [e.message, String(e), e.stack ?? '', JSON.stringify(e), String((e.cause as Error)?.message)]) {
      assert.ok(!text.includes(KEY), `key leaked in: ${text}`);
    }
  });

  test('404 model not found, and 400', async () => {
    api.script('alice', fault.modelNotFound('claude-nope'), fault.badRequest('messages: field required'));
    const e = await rejection(client({ model: 'claude-nope' }).send({ system: SYSTEM, messages: hello }));
    assert.ok(e instanceof ModelError && e.kind === 'model');
    assert.match(e.message, /model "claude-nope" not found/);
    const bad = await rejection(client().send({ system: SYSTEM, messages: hello }));
    assert.ok(bad instanceof ModelError && bad.kind === 'request');
    assert.match(bad.message, /field required/);
    assert.equal(api.requests().length, 2);
  });

  test('exhausted retries end with the failure kind', async () => {
    api.script('alice', fault.rateLimit(), fault.rateLimit(), fault.overloaded(), fault.overloaded(), fault.server(503), fault.server(503));
    const c = client({ retry: { ...FAST, maxRetries: 1 } });
    const kinds = [];
    for (let i = 0; i < 3; i++) {
      const e = await rejection(c.send({ system: SYSTEM, messages: hello }));
      assert.ok(e instanceof ModelError);
      assert.equal(e.attempts, 2);
      assert.match(e.message, /gave up after 2 attempts/);
      kinds.push(e.kind);
    }
    assert.deepEqual(kinds, ['rate_limit', 'overloaded', 'server']);
  });

  test('abort during a stalled stream rejects within 200 ms; the server sees the disconnect', async () => {
    api.script('alice', fault.stall(3));
    const ac = new AbortController();
    const p = client().send({ system: SYSTEM, messages: hello, signal: ac.signal });
    await api.waitForRequest((r) => r.outcome === 'stall');
    await new Promise((r) => setTimeout(r, 30));
    const t0 = Date.now();
    ac.abort();
    const e = await rejection(p);
    assert.ok(Date.now() - t0 < 200, `took ${Date.now() - t0} ms`);
    assert.ok(isAbortError(e), `not an abort: ${e}`);
    assert.ok(!(e instanceof ModelError));
    await api.waitForRequest((r) => r.disconnectedAt !== undefined, 1000);
  });

  test('abort during backoff stops at once, with no further request', async () => {
    api.script('alice', fault.overloaded(), 'never reached');
    const ac = new AbortController();
    let t0 = 0;
    const p = client({ retry: { maxRetries: 3, baseDelayMs: 20_000, maxDelayMs: 20_000 } }).send({
      system: SYSTEM, messages: hello, signal: ac.signal,
      onStatus: (s) => { if (s.state === 'retrying') { t0 = Date.now(); setTimeout(() => ac.abort(), 10); } },
    });
    const e = await rejection(p);
    assert.ok(isAbortError(e));
    assert.ok(t0 > 0 && Date.now() - t0 < 200);
    assert.equal(api.requests().length, 1);
  });

  test('a stalled stream is detected, dropped and retried', async () => {
    api.script('alice', fault.stall(4), shaped('cut off', { resetAfter: 3 }), 'third time lucky');
    const statuses: ModelStatus[] = [];
    const r = await client({ streamIdleMs: 100 }).send({ system: SYSTEM, messages: hello, onStatus: (s) => statuses.push(s) });
    assert.deepEqual(r.content, [{ type: 'text', text: 'third time lucky' }]);
    assert.equal(r.attempts, 3);
    const reasons = statuses.flatMap((s) => (s.state === 'retrying' ? [s.reason] : []));
    assert.equal(reasons[0], 'stream stalled');
    assert.match(reasons[1], /network error/);
  });

  test('a slow answer whose stream sends only pings for longer than the stall watchdog is alive: not cut, not sent again', async () => {
    api.script('alice', shaped('slow but sure', { pings: { after: 1, forMs: 800, everyMs: 50 } }));
    const statuses: ModelStatus[] = [];
    const r = await client({ streamIdleMs: 250 }).send({ system: SYSTEM, messages: hello, onStatus: (s) => statuses.push(s) });
    assert.deepEqual(r.content, [{ type: 'text', text: 'slow but sure' }]);
    assert.equal(r.attempts, 1);
    assert.equal(api.requests().length, 1, 'the request was not sent again');
    assert.deepEqual(statuses.filter((s) => s.state === 'retrying'), []);
  });

  test('network error (nothing listening) is retried, then fails as network', async () => {
    const gone = await startFakeApi();
    const url = gone.url;
    await gone.close();
    const statuses: ModelStatus[] = [];
    const e = await rejection(createModelClient({ apiKey: KEY, baseURL: url, model: 'm', caching: false, retry: { ...FAST, maxRetries: 2 } })
      .send({ system: SYSTEM, messages: hello, onStatus: (s) => statuses.push(s) }));
    assert.ok(e instanceof ModelError);
    assert.equal(e.kind, 'network');
    assert.equal(e.attempts, 3);
    const retries = statuses.filter((s) => s.state === 'retrying');
    assert.equal(retries.length, 2);
    assert.match(retries[0].state === 'retrying' ? retries[0].reason : '', /ECONNREFUSED/);
  });

  test('caching: breakpoints sent, usage reports cache writes then reads; system unchanged between calls', async () => {
    const c = client({ caching: true });
    const tools: ModelTool[] = [{ name: 'bash', description: 'run '.repeat(300), input_schema: { type: 'object' } }];
    const system = `${SYSTEM} ${'rules '.repeat(400)}`;
    const m1: ModelMessage[] = [{ role: 'user', content: 'task: '.repeat(200) }];
    const r1 = await c.send({ system, tools, messages: m1 });
    assert.equal(r1.usage.cacheRead, 0);
    assert.ok(r1.usage.cacheWrite > 1000, `write ${r1.usage.cacheWrite}`);
    const m2: ModelMessage[] = [...m1, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }];
    const r2 = await c.send({ system, tools, messages: m2 });
    assert.equal(r2.usage.cacheRead, r1.usage.cacheWrite);
    assert.ok(r2.usage.cacheWrite > 0 && r2.usage.input === 0);
    const [b1, b2] = api.requests().map((r) => r.body);
    assert.equal(JSON.stringify(b1.system), JSON.stringify(b2.system));
    assert.deepEqual(b1.tools[0].cache_control, { type: 'ephemeral' });
    assert.deepEqual(api.usage('alice'), { requests: 2, input: r1.usage.input + r2.usage.input, output: r1.usage.output + r2.usage.output, cacheRead: r2.usage.cacheRead, cacheWrite: r1.usage.cacheWrite + r2.usage.cacheWrite });
  });

  test('caching off: no cache_control is sent', async () => {
    await client().send({ system: SYSTEM, tools: [{ name: 't', input_schema: { type: 'object' } }], messages: hello });
    assert.ok(!JSON.stringify(api.requests()[0].body).includes('cache_control'));
  });
});

describe('withCacheBreakpoints', () => {
  const tools: ModelTool[] = [
    { name: 'a', input_schema: { type: 'object' } },
    { name: 'b', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    { name: 'c', input_schema: { type: 'object' } },
  ];
  const messages: ModelMessage[] = [
    { role: 'user', content: 'start' },
    { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: 't1', name: 'a', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r1', cache_control: { type: 'ephemeral' } }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'a', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'r2' }, { type: 'text', text: 'new mail' }] },
  ];
  const count = (v: unknown) => JSON.stringify(v).split('cache_control').length - 1;

  test('marks last tool, system, previous user turn and last block; at most four; inputs untouched', () => {
    const before = JSON.stringify({ tools, messages });
    const out = withCacheBreakpoints('You are alice.', tools, messages);
    assert.equal(JSON.stringify({ tools, messages }), before);
    assert.equal(count(out), 4);
    assert.deepEqual(out.tools!.map((t) => 'cache_control' in t), [false, false, true]);
    assert.deepEqual(out.system, [{ type: 'text', text: 'You are alice.', cache_control: { type: 'ephemeral' } }]);
    const blocks = (i: number) => out.messages[i].content as Array<{ cache_control?: unknown }>;
    assert.ok(blocks(2)[0].cache_control, 'previous user turn');
    assert.ok(!blocks(4)[0].cache_control && blocks(4)[1].cache_control, 'last block of the request');
    assert.equal(out.messages[0].content, 'start');
  });

  test('string content, array system, no tools, single message', () => {
    const out = withCacheBreakpoints([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], undefined, [{ role: 'user', content: 'hi' }]);
    assert.equal(out.tools, undefined);
    assert.equal(count(out), 2);
    assert.deepEqual(out.messages[0].content, [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }]);
    assert.ok(!('cache_control' in (out.system as object[])[0]));
  });
});

describe('retry timing', () => {
  const policy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 8000 };
  test('exponential, jittered, capped; retry-after is a floor under the cap', () => {
    assert.equal(backoffDelay(1, policy, undefined, () => 0), 500);
    assert.equal(backoffDelay(1, policy, undefined, () => 1), 1000);
    assert.equal(backoffDelay(3, policy, undefined, () => 1), 4000);
    assert.equal(backoffDelay(10, policy, undefined, () => 1), 8000);
    assert.equal(backoffDelay(1, policy, 3000, () => 0), 3000);
    assert.equal(backoffDelay(1, policy, 3_600_000, () => 0), 8000);
  });
  test('parses retry-after forms', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    assert.equal(parseRetryAfter(h({ 'retry-after': '3' })), 3000);
    assert.equal(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '3' })), 250);
    assert.equal(parseRetryAfter(h({ 'retry-after': new Date(10_000).toUTCString() }), 4000), 6000);
    assert.equal(parseRetryAfter(h({})), undefined);
  });
});

describe('model config and redaction', () => {
  test('SecretStorage key wins over env; setting URL wins over env; blanks are unset', () => {
    assert.deepEqual(resolveModelConfig({ secretKey: 'sk-secret', envKey: 'sk-env', settingBaseUrl: '', envBaseUrl: 'http://proxy:8080/v1/' }),
      { apiKey: 'sk-secret', keySource: 'secret', baseURL: 'http://proxy:8080' });
    assert.deepEqual(resolveModelConfig({ secretKey: '  ', envKey: ' sk-env\n', settingBaseUrl: 'https://a.example/', envBaseUrl: 'http://b' }),
      { apiKey: 'sk-env', keySource: 'env', baseURL: 'https://a.example' });
    assert.equal(resolveModelConfig({ envKey: 'k' }).baseURL, undefined);
  });
  test('no key is a clear auth error; a bad URL is a config error', () => {
    assert.throws(() => resolveModelConfig({ secretKey: null, envKey: undefined }),
      (e: unknown) => e instanceof ModelError && e.kind === 'auth' && /Set API Key/.test(e.message) && /ANTHROPIC_API_KEY/.test(e.message));
    assert.throws(() => resolveModelConfig({ envKey: KEY, settingBaseUrl: `ftp://x/${KEY}` }),
      (e: unknown) => e instanceof ModelError && e.kind === 'config' && !e.message.includes(KEY));
  });
  test('redact masks registered keys and key-shaped tokens', () => {
    const s = redact(`key ${KEY} header Authorization: Bearer abc.def x-api-key: zzz123 url http://u:p@h/ other sk-ant-abcdefgh1234`, [KEY]);
    assert.ok(!s.includes(KEY) && !s.includes('abc.def') && !s.includes('zzz123') && !s.includes('u:p@') && !s.includes('abcdefgh1234'), s);
    assert.equal(redact('nothing secret here'), 'nothing secret here');
  });
});
