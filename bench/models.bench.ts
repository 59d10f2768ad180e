// models.openai_call_ms (docs/models.md): one agent-sized model call through the `openai:`
// provider — the loop's Anthropic-shaped conversation converted at the edge, streamed through
// the `openai` client under the shared send loop (retries, stall timer, abort relay), the
// answer's tool call assembled from its pieces — against the fake Chat Completions server
// (test/fake-openai). Same run, same server and reply: the `openai` client called bare with a
// ready-made request and the stream merely drained, as the floor.
// Tunables (env): BENCH_MODELS_CALLS (300).
import OpenAI from 'openai';
import { createModelFactory, type ModelMessage, type ModelTool } from '../src/core/model';
import { reply, toolUse } from '../test/fake-api';
import { startFakeOpenAI } from '../test/fake-openai/server';
import { bench, latency, note } from './lib/report';

const CALLS = Number(process.env.BENCH_MODELS_CALLS ?? 300);
const WARMUP = 20;
const KEY = 'sk-bench-0000000000000000';

/** A conversation of 40 rounds (a tool call and its result each), like an agent's mid-phase. */
function conversation(): ModelMessage[] {
  const out: ModelMessage[] = [{ role: 'user', content: 'Build the parser.' }];
  for (let i = 0; i < 40; i++) {
    out.push({ role: 'assistant', content: [{ type: 'text', text: `Step ${i}.` }, { type: 'tool_use', id: `t${i}`, name: 'bash', input: { command: `npm test -- ${i}` } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `ok ${i}\n`.repeat(20) }] });
  }
  return out;
}

async function timed(call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call();
  const out: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await call();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const srv = await startFakeOpenAI({ apiKey: KEY });
  const answer = () => srv.script('bench', reply('Running it.', toolUse('bash', { command: 'npm test' })));
  const system = 'You are bench, a teammate.';
  const tools: ModelTool[] = [{ name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
  const messages = conversation();
  try {
    const client = createModelFactory({ anthropic: () => { throw new Error('none'); }, openai: () => ({ apiKey: KEY, baseURL: srv.url }) })('openai:gpt-bench', () => {});
    const ours = await timed(async () => {
      answer();
      const r = await client.send({ system, tools, messages });
      if (r.content.length !== 2) throw new Error('unexpected reply');
    });
    // The floor: the same request, already in Chat Completions form, and the stream drained.
    const bare = new OpenAI({ apiKey: KEY, baseURL: srv.url, maxRetries: 0 });
    const sent = srv.requests('bench').at(-1)!.body as OpenAI.Chat.ChatCompletionCreateParamsStreaming;
    const floor = await timed(async () => {
      answer();
      const stream = await bare.chat.completions.create(sent);
      for await (const _ of stream) { /* drained */ }
    });
    const o = latency(ours);
    const f = latency(floor);
    note(`${CALLS} calls each with an 81-message conversation, after ${WARMUP} warm-up calls; ratio ours/bare p50 ${(o.p50_ms / f.p50_ms).toFixed(2)}`);
    bench('models.openai_call_ms', 'ours', { calls: CALLS, p50_ms: o.p50_ms, p99_ms: o.p99_ms, bare_p50_ms: f.p50_ms, bare_p99_ms: f.p99_ms });
  } finally {
    await srv.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
