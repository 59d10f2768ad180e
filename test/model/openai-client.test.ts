// The `openai:` provider through the real `openai` client against the fake Chat Completions
// server (test/fake-openai): streamed text and tool calls, usage, retries, errors, abort.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createModelFactory, isAbortError, ModelError, type ModelClient, type ModelMessage, type ModelTool } from '../../src/core/model';
import { fault, reply, shaped, toolUse } from '../fake-api';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';

const KEY = 'sk-openai-test-key-0123456789abcdef';
const SYSTEM = 'You are alice, a teammate on team demo.';
const hello: ModelMessage[] = [{ role: 'user', content: 'hello' }];
const TOOLS: ModelTool[] = [{ name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];
const noKey = () => { throw new ModelError('auth', 'no anthropic key'); };

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(() => assert.fail('expected a rejection'), (e: Error) => e);
}

describe('openai: provider', () => {
  let srv: FakeOpenAI;
  let client: (model?: string, key?: string) => ModelClient;
  before(async () => {
    srv = await startFakeOpenAI({ apiKey: KEY });
    client = (model = 'openai:gpt-test', key = KEY) => createModelFactory({
      anthropic: noKey, openai: () => ({ apiKey: key, baseURL: srv.url }), retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 40 },
    })(model, () => {});
  });
  after(() => srv.close());
  beforeEach(() => srv.requests().length);

  test('streams text in pieces and returns tool calls whose arguments arrived in parts; usage is recorded', async () => {
    srv.script('alice', reply('Running the tests now.', toolUse('bash', { command: 'npm test -- --grep "a b"' })));
    const pieces: string[] = [];
    const r = await client().send({ system: SYSTEM, tools: TOOLS, messages: hello, onText: (d) => pieces.push(d) });
    assert.ok(pieces.length > 1, 'text arrived in several pieces');
    assert.equal(pieces.join(''), 'Running the tests now.');
    assert.equal(r.stopReason, 'tool_use');
    const call = r.content.find((b) => b.type === 'tool_use');
    assert.deepEqual(call && { name: call.name, input: call.input }, { name: 'bash', input: { command: 'npm test -- --grep "a b"' } });
    assert.ok(r.usage.input > 0 && r.usage.output > 0 && !r.usage.unreported, JSON.stringify(r.usage));
    const sent = srv.requests('alice').at(-1)!.body;
    assert.equal(sent.model, 'gpt-test', 'the prefix is not sent');
    assert.equal(sent.messages[0].role, 'system');
    assert.equal(sent.tools[0].function.name, 'bash');
    assert.equal(sent.stream, true);
  });

  test('a tool result goes back as a tool message right after the call, mail after it as user text', async () => {
    srv.script('alice', 'ok');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.txt' }, { type: 'text', text: '<team-mail from="bob">hi</team-mail>' }] },
    ];
    await client().send({ system: SYSTEM, tools: TOOLS, messages });
    const sent = srv.requests('alice').at(-1)!.body.messages;
    assert.deepEqual(sent.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'tool', 'user']);
    assert.equal(sent[2].tool_calls[0].function.arguments, '{"command":"ls"}');
    assert.deepEqual([sent[3].tool_call_id, sent[3].content], ['call_1', 'a.txt']);
  });

  test('429 is retried after its retry-after and then answers', async () => {
    srv.script('alice', fault.rateLimit(0), 'after the wait');
    const r = await client().send({ system: SYSTEM, messages: hello });
    assert.equal(r.attempts, 2);
    assert.deepEqual(r.content, [{ type: 'text', text: 'after the wait' }]);
  });

  test('a rejected key (401) is not retried and says which key to set', async () => {
    const before = srv.requests().length;
    const e = await rejection(client('openai:gpt-test', 'sk-wrong-key-000000000000000').send({ system: SYSTEM, messages: hello }));
    assert.ok(e instanceof ModelError && e.kind === 'auth', String(e));
    assert.match(e.message, /401.*Set OpenAI API Key.*OPENAI_API_KEY/);
    assert.equal(srv.requests().length - before, 1, 'one request, no retry');
    assert.doesNotMatch(e.message, /sk-wrong-key/);
  });

  test('an error in the middle of the stream is retried, then the reply is whole', async () => {
    srv.script('alice', shaped('A long enough reply to be cut off midway through.', { errorAfter: 2 }), 'whole reply');
    const r = await client().send({ system: SYSTEM, messages: hello });
    assert.equal(r.attempts, 2);
    assert.deepEqual(r.content, [{ type: 'text', text: 'whole reply' }]);
  });

  test('stop aborts a request the server never answers, at once, and the connection is closed', async () => {
    srv.script('alice', fault.hang());
    const stop = new AbortController();
    const pending = client().send({ system: SYSTEM, messages: hello, signal: stop.signal });
    const r = await srv.waitForRequest((x) => x.agent === 'alice' && x.outcome === 'hang', 3000);
    const t0 = Date.now();
    stop.abort();
    const e = await rejection(pending);
    assert.ok(isAbortError(e), String(e));
    assert.ok(Date.now() - t0 < 500, 'stopped promptly');
    await srv.waitForRequest((x) => x.seq === r.seq && x.disconnectedAt !== undefined, 3000);
  });

  test('a server that reports no usage: the call says so instead of counting 0', async () => {
    const quiet = await startFakeOpenAI({ noUsage: true });
    try {
      quiet.script('alice', 'hi');
      const c = createModelFactory({ anthropic: noKey, openai: () => ({ apiKey: 'k-local-0000000000', baseURL: quiet.url }) })('openai:llama', () => {});
      const r = await c.send({ system: SYSTEM, messages: hello });
      assert.equal(r.usage.unreported, true);
    } finally {
      await quiet.close();
    }
  });

  test('no key for openai:, an unknown prefix, vscode: outside VS Code: each a clear error at spawn check and call', async () => {
    const f = createModelFactory({ anthropic: noKey, openai: () => { throw new ModelError('auth', 'No OpenAI API key for an openai: model'); } });
    const cases: Array<[string, RegExp]> = [
      ['openai:gpt-test', /No OpenAI API key/],
      ['mistral:large', /unknown model provider "mistral:"/],
      ['vscode:copilot/gpt-4o', /only inside VS Code/],
    ];
    for (const [id, re] of cases) {
      const c = f(id, () => {});
      assert.match((await rejection(c.preflight!())).message, re, id);
      assert.match((await rejection(c.send({ messages: hello }))).message, re, id);
    }
  });
});
