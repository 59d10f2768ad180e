// runtime.wake (issue 3, SPEC §8): a message sent from another process → the recipient's next
// model request arriving at the fake Messages API, p50/p99 ms.
// - recipient "idle": a teammate that called `idle` and waits in its idle phase; it is woken
//   by the engine's inbox subscription (fs.watch), not by the poll (idlePollSeconds = 5).
// - recipient "working": a teammate mid-turn, running `sleep 0.3` through bash every round;
//   the message is sent at a random point of that sleep and rides with the next round's
//   tool results, so the figure is dominated by what is left of the tool call — reported
//   alongside as after_tool_* (tool finished → request at the API).
// - naive: the tutorial's idle teammate (learn-claude-code s11): sleep 5 s, read the JSONL
//   inbox, and on mail call the model. Measured with a real 5 s poll on a few samples.
// The sender is a child process with its own Team (ours) or NaiveMailbox (naive).
// Tunables (env): BENCH_RT_WAKE_SAMPLES (30), BENCH_RT_NAIVE_WAKE_SAMPLES (5).
import Anthropic from '@anthropic-ai/sdk';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NaiveMailbox } from './lib/naive';
import { startChild, startTogether, type Child } from './lib/proc';
import { bench, latency, note, round, wallMs } from './lib/report';
import { reply, toolUse, type RecordedRequest } from '../test/fake-api';
import { allIdle, API_KEY, inProcessApi, noteMachine, sleep, startRuntime, until } from './fixtures/runtime-common';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const SAMPLES = env('BENCH_RT_WAKE_SAMPLES', 30);
const NAIVE_SAMPLES = env('BENCH_RT_NAIVE_WAKE_SAMPLES', 5);
const TUTORIAL_POLL_MS = 5000;
const TOOL_SLEEP_S = 0.3;
const SAMPLE_TIMEOUT_MS = 15_000;
const FIXTURES = join(__dirname, 'fixtures');

/** First arrival time (wall ms, in this process) of a request carrying `wake#<seq>`. */
class Arrivals {
  private at = new Map<number, number>();
  private waiters = new Map<number, (t: number) => void>();

  note(r: RecordedRequest, t: number): void {
    const last = r.body?.messages?.at?.(-1);
    if (!last) return;
    for (const m of JSON.stringify(last.content).matchAll(/wake#(\d+)/g)) {
      const seq = Number(m[1]);
      if (this.at.has(seq)) continue;
      this.at.set(seq, t);
      this.waiters.get(seq)?.(t);
      this.waiters.delete(seq);
    }
  }

  wait(seq: number): Promise<number> {
    const t = this.at.get(seq);
    if (t !== undefined) return Promise.resolve(t);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`wake#${seq}: no request within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
      this.waiters.set(seq, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

/** The sender child's `sent` acknowledgements, by seq. */
function sentStamps(child: Child<unknown>): (seq: number) => Promise<number> {
  const stamps = new Map<number, number>();
  const waiters = new Map<number, (t: number) => void>();
  child.onMessage((m) => {
    if (m.type !== 'sent') return;
    const seq = m.seq as number;
    stamps.set(seq, m.sentAt as number);
    waiters.get(seq)?.(m.sentAt as number);
  });
  return (seq) => {
    const t = stamps.get(seq);
    return t !== undefined ? Promise.resolve(t) : new Promise((r) => waiters.set(seq, r));
  };
}

const slowest = (xs: number[]): string => [...xs].sort((a, b) => b - a).slice(0, 4).map((x) => `${Math.round(x)} ms`).join(', ');

const shuffled = <T>(xs: T[]): T[] => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

async function main(): Promise<void> {
  noteMachine();
  const api = await inProcessApi();
  const arrivals = new Arrivals();
  api.setDefault((r) => {
    arrivals.note(r, wallMs());
    if (r.agent === 'worker') return reply(toolUse('bash', { command: `sleep ${TOOL_SLEEP_S}` }));
    if (r.agent === 'idler') return reply(toolUse('idle', {}));
    return reply('ok');
  });
  const ours = await startRuntime(api.url);
  const { rt } = ours;
  const sender = startChild<{ sent: number }>(join(FIXTURES, 'runtime-sender.js'), ['ours', ours.root, 'user']);
  await startTogether([sender]);
  const sentAt = sentStamps(sender);
  let seq = 0;

  // ── idle recipient ──
  // When the runtime starts the model call (activity 'requesting'), to split the latency into
  // engine + runtime work (send → model.send) and the SDK/HTTP leg (model.send → server).
  const requesting: number[] = [];
  rt.onEvent((e) => {
    if (e.type === 'activity' && e.agent === 'idler' && e.activity.kind === 'requesting') requesting.push(wallMs());
  });
  const split: Array<[number, number]> = [];
  await rt.spawnTeammate({ name: 'idler', role: 'reviewer', prompt: 'Wait for messages.' });
  const idle: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await allIdle(rt, ['idler']);
    await until(() => rt.activity('idler').kind === 'idle', 5000, 'idler idle');
    // Settled into the idle wait (roster write, mail and task checks done), at a random
    // phase of the 5 s fallback poll.
    await sleep(200 + Math.random() * 300);
    const s = ++seq;
    sender.send({ type: 'send', seq: s, to: 'idler' });
    const [sent, arrived] = await Promise.all([sentAt(s), arrivals.wait(s)]);
    idle.push(arrived - sent);
    const req = requesting.find((t) => t >= sent && t <= arrived);
    if (req !== undefined) split.push([req - sent, arrived - req]);
  }
  const li = latency(idle);
  note(`idle recipient: ${li.samples} samples, p50 ${round(li.p50_ms)} ms, p99 ${round(li.p99_ms)} ms; slowest ${slowest(idle)}`);
  const toCall = latency(split.map((x) => x[0]));
  const http = latency(split.map((x) => x[1]));
  note(`  of which send → runtime calls the model: p50 ${round(toCall.p50_ms)} ms, p99 ${round(toCall.p99_ms)} ms; model call → request at the API: p50 ${round(http.p50_ms)} ms, p99 ${round(http.p99_ms)} ms`);
  bench('runtime.wake', 'ours', {
    recipient: 'idle', p50_ms: li.p50_ms, p99_ms: li.p99_ms, max_ms: li.max_ms, samples: li.samples,
    to_model_call_p50_ms: toCall.p50_ms, to_model_call_p99_ms: toCall.p99_ms, http_p50_ms: http.p50_ms, http_p99_ms: http.p99_ms,
  });
  await rt.stopTeammate('idler');

  // ── working recipient ──
  let toolStart: ((t: number) => void) | null = null;
  const toolEnds: number[] = [];
  rt.onEvent((e) => {
    if (e.type === 'activity' && e.agent === 'worker' && e.activity.kind === 'tool') {
      toolStart?.(wallMs());
      toolStart = null;
    }
    if (e.type === 'tool' && e.agent === 'worker') toolEnds.push(wallMs());
  });
  const nextToolStart = () => new Promise<number>((r) => (toolStart = r));
  let started = nextToolStart();
  await rt.spawnTeammate({ name: 'worker', role: 'builder', prompt: 'Keep building.' });
  const working: number[] = [];
  const afterTool: number[] = [];
  const intoTool: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = await started;
    await sleep(Math.random() * TOOL_SLEEP_S * 1000 * 0.8);
    const s = ++seq;
    sender.send({ type: 'send', seq: s, to: 'worker' });
    started = nextToolStart();
    const [sent, arrived] = await Promise.all([sentAt(s), arrivals.wait(s)]);
    working.push(arrived - sent);
    intoTool.push(sent - t0);
    const end = toolEnds.filter((t) => t <= arrived).at(-1);
    if (end !== undefined) afterTool.push(arrived - end);
  }
  const lw = latency(working);
  note(`working recipient: slowest ${slowest(working)}; tool end → request slowest ${slowest(afterTool)}`);
  const la = latency(afterTool);
  note(
    `working recipient (bash sleep ${TOOL_SLEEP_S}s per round): p50 ${round(lw.p50_ms)} ms, p99 ${round(lw.p99_ms)} ms; ` +
      `sent ${round(latency(intoTool).p50_ms)} ms (p50) into the tool; tool end → request p50 ${round(la.p50_ms)} ms, p99 ${round(la.p99_ms)} ms`,
  );
  bench('runtime.wake', 'ours', {
    recipient: 'working', p50_ms: lw.p50_ms, p99_ms: lw.p99_ms, max_ms: lw.max_ms, samples: lw.samples,
    tool_ms: TOOL_SLEEP_S * 1000, after_tool_p50_ms: la.p50_ms, after_tool_p99_ms: la.p99_ms,
  });
  await rt.stopTeammate('worker');
  sender.send({ type: 'stop' });
  await sender.done;
  await ours.close();

  // ── naive: the tutorial's idle poll ──
  const naiveRoot = await mkdtemp(join(tmpdir(), 'bench-runtime-naive-'));
  await mkdir(join(naiveRoot, '.team', 'inbox'), { recursive: true });
  const nsender = startChild<{ sent: number }>(join(FIXTURES, 'runtime-sender.js'), ['naive', naiveRoot, 'user']);
  await startTogether([nsender]);
  const nsentAt = sentStamps(nsender);
  const client = new Anthropic({ apiKey: API_KEY, baseURL: api.url, maxRetries: 0 });
  const mb = new NaiveMailbox(naiveRoot);
  let running = true;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  let lastReplyAt = wallMs();
  const naiveLoop = (async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'You are naive1. Wait for messages.' }];
    while (running) {
      // s11 idle phase: time.sleep(POLL_INTERVAL), then read_inbox.
      await Promise.race([sleep(TUTORIAL_POLL_MS), stopped]);
      if (!running) break;
      const { messages: inbox } = await mb.readInbox('naive1');
      if (!inbox.length) continue;
      messages.push({ role: 'user', content: inbox.map((m) => JSON.stringify(m)).join('\n') });
      const r = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 1024, system: 'You are naive1, a teammate.', messages });
      messages.push({ role: 'assistant', content: r.content.map((b) => (b.type === 'text' ? b.text : '')).join('') || 'ok' });
      lastReplyAt = wallMs();
    }
  })();
  const naive: number[] = [];
  // Stratified send phases over the 5 s poll (jittered, shuffled): a few samples still cover it.
  const phases = shuffled(Array.from({ length: NAIVE_SAMPLES }, (_, i) => ((i + Math.random()) / NAIVE_SAMPLES) * TUTORIAL_POLL_MS));
  await sleep(100);
  for (const phase of phases) {
    const since = wallMs() - lastReplyAt;
    await sleep(Math.max(0, phase - since));
    const s = ++seq;
    nsender.send({ type: 'send', seq: s, to: 'naive1' });
    const [sent, arrived] = await Promise.all([nsentAt(s), arrivals.wait(s)]);
    naive.push(arrived - sent);
    await until(() => lastReplyAt >= arrived, 5000, 'naive reply');
  }
  running = false;
  stop();
  await naiveLoop;
  const ln = latency(naive);
  note(`naive (5 s poll, idle): ${ln.samples} samples ${naive.map((x) => Math.round(x)).join(', ')} ms`);
  bench('runtime.wake', 'naive', { recipient: 'idle', p50_ms: ln.p50_ms, p99_ms: ln.p99_ms, max_ms: ln.max_ms, samples: ln.samples, poll_ms: TUTORIAL_POLL_MS });
  nsender.send({ type: 'stop' });
  await nsender.done;
  await rm(naiveRoot, { recursive: true, force: true });
  await api.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
