// The fake Messages API, exercised through the real @anthropic-ai/sdk so that every runtime
// test built on it is known to speak the wire format the SDK expects.
import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { approxTokens, cachedFraction, canonicalJson, fault, keyFingerprint, reply, shaped, startFakeApi, toolUse, type FakeApi, type ScriptJson } from './fake-api';

const KEY = 'sk-ant-test-fake-key-0123456789';
const sdk = (api: FakeApi, key = KEY) => new Anthropic({ apiKey: key, baseURL: api.url, maxRetries: 0, timeout: 5000 });
const ask = (who: string, text = 'hi') => ({
  model: 'claude-test', max_tokens: 100, system: `You are ${who}, a teammate.`,
  messages: [{ role: 'user' as const, content: text }],
});

describe('fake-api', () => {
  let api: FakeApi;
  let client: Anthropic;
  before(async () => { api = await startFakeApi(); client = sdk(api); });
  after(() => api.close());
  beforeEach(() => api.reset());

  test('streams text and tool_use (partial JSON in chunks) that the SDK assembles', async () => {
    api.script('alice', reply('Let me look at that file for you now.', toolUse('read_file', { path: 'src/a.ts', limit: 20 })));
    const stream = client.messages.stream(ask('alice'));
    const partials: string[] = [];
    stream.on('inputJson', (p) => partials.push(p));
    const msg = await stream.finalMessage();
    assert.equal(msg.stop_reason, 'tool_use');
    assert.deepEqual(msg.content.map((b) => b.type), ['text', 'tool_use']);
    assert.equal((msg.content[0] as Anthropic.TextBlock).text, 'Let me look at that file for you now.');
    const tu = msg.content[1] as Anthropic.ToolUseBlock;
    assert.equal(tu.name, 'read_file');
    assert.deepEqual(tu.input, { path: 'src/a.ts', limit: 20 });
    assert.ok(partials.length >= 3, `partial_json chunks: ${partials.length}`);
    assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);

    const [r] = api.requests('alice');
    assert.equal(r.stream, true);
    assert.equal(r.auth, 'bearer');
    assert.equal(r.keyFingerprint, keyFingerprint(KEY));
    assert.equal(r.headers.authorization, undefined);
    assert.ok(!JSON.stringify(r).includes(KEY), 'the key is never recorded');
    assert.equal(r.body.messages[0].content, 'hi');
    assert.equal(r.outcome, 'reply');
  });

  test('answers non-streaming requests with a JSON message', async () => {
    api.script('bob', 'plain answer');
    const msg = await client.messages.create(ask('bob'));
    assert.equal((msg.content[0] as Anthropic.TextBlock).text, 'plain answer');
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(api.requests('bob')[0].stream, false);
  });

  test('accepts x-api-key; a missing key is 401', async () => {
    const body = JSON.stringify(ask('carol'));
    const ok = await fetch(`${api.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body });
    assert.equal(ok.status, 200);
    const none = await fetch(`${api.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: { type: string } }).error.type, 'authentication_error');
    assert.deepEqual(api.requests().map((r) => r.auth), ['x-api-key', 'none']);
  });

  test('scripts per agent and per turn, then falls back to the default', async () => {
    api.script('alice', 'a1', 'a2');
    api.script('bob', 'b1');
    api.script('*', 'anyone');
    const say = async (who: string) => ((await client.messages.create(ask(who))).content[0] as Anthropic.TextBlock).text;
    assert.equal(await say('alice'), 'a1');
    assert.equal(await say('bob'), 'b1');
    assert.equal(await say('alice'), 'a2');
    assert.equal(await say('bob'), 'anyone');
    assert.equal(await say('bob'), 'done');
    api.setDefault('nothing left');
    assert.equal(await say('alice'), 'nothing left');
    api.setDefault((r) => `default for ${r.agent}`);
    assert.equal(await say('bob'), 'default for bob');
    assert.deepEqual(api.requests().map((r) => r.agent), ['alice', 'bob', 'alice', 'bob', 'bob', 'alice', 'bob']);
  });

  test('a function turn answers from what the agent was sent', async () => {
    api.script('alice', (r) => `you said ${r.body.messages.at(-1).content}`);
    const msg = await client.messages.create(ask('alice', 'ping'));
    assert.equal((msg.content[0] as Anthropic.TextBlock).text, 'you said ping');
  });

  test('faults: 429 with retry-after, 529, 500, 401, 404 model not found', async () => {
    api.script('alice', fault.rateLimit(3600), fault.overloaded(), fault.server(), fault.auth(), fault.modelNotFound('claude-nope'));
    const err = async () => client.messages.create(ask('alice')).then(() => assert.fail('expected an error'), (e: unknown) => e as APIError);
    const e429 = await err();
    assert.equal(e429.status, 429);
    assert.equal(e429.headers?.get('retry-after'), '3600');
    assert.equal((await err()).status, 529);
    assert.equal((await err()).status, 500);
    assert.ok((await err()) instanceof Anthropic.AuthenticationError);
    const e404 = await err();
    assert.ok(e404 instanceof Anthropic.NotFoundError);
    assert.equal(e404.type, 'not_found_error');
    assert.match(e404.message, /claude-nope/);
  });

  test('a stream can stall forever; the server sees the client give up', async () => {
    api.script('alice', fault.stall(3, 'never finished'));
    const ac = new AbortController();
    const stream = client.messages.stream(ask('alice'), { signal: ac.signal });
    let events = 0;
    stream.on('streamEvent', () => { if (++events === 2) setTimeout(() => ac.abort(), 50); });
    await assert.rejects(stream.finalMessage(), (e: Error) => e instanceof Anthropic.APIUserAbortError);
    const r = await api.waitForRequest((x) => x.disconnectedAt !== undefined, 1000);
    assert.equal(r.outcome, 'stall');
  });

  test('slow streams, resets and mid-stream error events', async () => {
    api.script('alice', shaped('slowly now', { delayMs: 15 }), shaped('cut', { resetAfter: 3 }), shaped('err', { errorAfter: 2 }), fault.reset());
    const t0 = Date.now();
    await client.messages.stream(ask('alice')).finalMessage();
    assert.ok(Date.now() - t0 >= 15 * 7, 'every event was delayed');
    await assert.rejects(client.messages.stream(ask('alice')).finalMessage());
    await assert.rejects(client.messages.stream(ask('alice')).finalMessage(), (e: APIError) => e.type === 'overloaded_error');
    await assert.rejects(client.messages.create(ask('alice')), Anthropic.APIConnectionError);
    assert.deepEqual(api.requests().map((r) => r.outcome), ['reply', 'reset', 'error-event', 'reset']);
  });

  test('simulates prompt caching from cache_control breakpoints', async () => {
    const long = 'x'.repeat(4000);
    const tools = [{ name: 't1', description: long, input_schema: { type: 'object' as const } }];
    const system = [{ type: 'text' as const, text: `You are alice. ${long}`, cache_control: { type: 'ephemeral' as const } }];
    const turn1 = [{ role: 'user' as const, content: [{ type: 'text' as const, text: long, cache_control: { type: 'ephemeral' as const } }] }];
    const u1 = (await client.messages.create({ model: 'm', max_tokens: 10, tools, system, messages: turn1 })).usage;
    assert.equal(u1.cache_read_input_tokens, 0);
    assert.ok(u1.cache_creation_input_tokens! > 2000, `write ${u1.cache_creation_input_tokens}`);

    // Next round: the old last block loses its breakpoint, a new one sits further on.
    const turn2 = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: long }] },
      { role: 'assistant' as const, content: 'ok' },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'more', cache_control: { type: 'ephemeral' as const } }] },
    ];
    const u2 = (await client.messages.create({ model: 'm', max_tokens: 10, tools, system, messages: turn2 })).usage;
    assert.equal(u2.cache_read_input_tokens, u1.cache_creation_input_tokens);
    assert.ok(u2.cache_creation_input_tokens! > 0 && u2.cache_creation_input_tokens! < 20);

    // Without breakpoints nothing is read or written.
    const u3 = (await client.messages.create({ model: 'm', max_tokens: 10, system: 'You are alice.', messages: [{ role: 'user', content: long }] })).usage;
    assert.equal(u3.cache_read_input_tokens, 0);
    assert.equal(u3.cache_creation_input_tokens, 0);
    const blockTokens = (t: string) => approxTokens(canonicalJson({ type: 'text', text: t }));
    assert.equal(u3.input_tokens, blockTokens(long) + blockTokens('You are alice.'));

    const a = api.usage('alice');
    assert.equal(a.requests, 3);
    assert.equal(a.cacheRead, u2.cache_read_input_tokens);
    assert.equal(a.cacheWrite, u1.cache_creation_input_tokens! + u2.cache_creation_input_tokens!);
    assert.equal(a.input, u1.input_tokens + u2.input_tokens + u3.input_tokens);
    assert.deepEqual(api.usage(), a);
    assert.equal(cachedFraction(a), a.cacheRead / (a.input + a.cacheRead + a.cacheWrite));
  });

  test('rejects more than four cache breakpoints, like the API', async () => {
    const cc = { type: 'ephemeral' as const };
    const content = [1, 2, 3, 4, 5].map((i) => ({ type: 'text' as const, text: `b${i}`, cache_control: cc }));
    await assert.rejects(client.messages.create({ ...ask('alice'), messages: [{ role: 'user', content }] }), Anthropic.BadRequestError);
  });

  test('waitForRequest sees future requests and explains a timeout', async () => {
    const waiting = api.waitForRequest((r) => r.agent === 'dave', 2000);
    await client.messages.create(ask('dave'));
    assert.equal((await waiting).agent, 'dave');
    await assert.rejects(api.waitForRequest((r) => r.agent === 'nobody', 50), /no matching request within 50 ms; got #1 dave reply/);
  });
});

test('close() ends stalled and hanging connections', async () => {
  const api = await startFakeApi();
  api.script('alice', fault.stall(2), fault.hang());
  const client = sdk(api);
  const s = client.messages.stream(ask('alice')).finalMessage().catch((e: Error) => e);
  const h = client.messages.create(ask('alice')).catch((e: Error) => e);
  await api.waitForRequest((r) => r.outcome === 'hang');
  const t0 = Date.now();
  await api.close();
  assert.ok(Date.now() - t0 < 500);
  assert.ok((await s) instanceof Error);
  assert.ok((await h) instanceof Error);
});

test('standalone process: prints its port, follows its script file and control endpoint', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fake-api-'));
  const file = join(dir, 'script.json');
  const write = async (s: ScriptJson) => { await writeFile(`${file}.tmp`, JSON.stringify(s)); await rename(`${file}.tmp`, file); };
  await write({ agentPattern: 'I am (\\w+)', agents: { erin: ['from file'] } });
  const child = spawn(process.execPath, [join(__dirname, 'fake-api', 'main.js'), '--port', '0', '--script', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise<string>((ok, fail) => {
      createInterface({ input: child.stdout! }).once('line', ok);
      child.once('exit', (code) => fail(new Error(`fake-api process exited early (${code})`)));
    });
    const { port } = JSON.parse(line) as { port: number };
    const client = new Anthropic({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const say = async () => ((await client.messages.create({ ...ask('x'), system: 'I am erin' })).content[0] as Anthropic.TextBlock).text;
    assert.equal(await say(), 'from file');
    assert.equal(await say(), 'done');
    await new Promise((r) => setTimeout(r, 20)); // a different mtime
    await write({ agentPattern: 'I am (\\w+)', agents: { erin: ['rewritten'] } });
    assert.equal(await say(), 'rewritten');
    await fetch(`http://127.0.0.1:${port}/_control/script`, { method: 'POST', body: JSON.stringify({ agents: { erin: ['posted'] } }) });
    assert.equal(await say(), 'posted');
    const reqs = (await (await fetch(`http://127.0.0.1:${port}/_control/requests?agent=erin`)).json()) as unknown[];
    assert.equal(reqs.length, 4);
    const usage = (await (await fetch(`http://127.0.0.1:${port}/_control/usage`)).json()) as { agents: Record<string, { requests: number }> };
    assert.equal(usage.agents.erin.requests, 4);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
});
