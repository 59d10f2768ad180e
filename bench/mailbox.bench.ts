// Mailbox benchmarks (issue 2, SPEC §8), ours against the tutorial's design on the same load:
// - mailbox.concurrent: writer processes append to one inbox while one reader consumes it;
//   counts lost / duplicated / reordered messages and throughput.
// - mailbox.wake: a message sent from another process → the subscriber's callback.
// Tunables (env): BENCH_MAILBOX_MSGS (24000 total over 8 writers), BENCH_MAILBOX_SINGLE_MSGS
// (10000), BENCH_MAILBOX_WINDOW (sends in flight per writer, 1), BENCH_MAILBOX_PIPELINE (64:
// the window of the pipelined single-writer rows), BENCH_WAKE_SAMPLES (60),
// BENCH_NAIVE_WAKE_SECONDS (25: the span over which naive wake sends are spread).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Team } from '../src/core/team/team';
import { NaiveMailbox } from './lib/naive';
import { sleep, startChild, startTogether, type Child } from './lib/proc';
import { bench, latency, note, round, wallMs, type Figures } from './lib/report';
import type { WriterResult } from './fixtures/writer';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const TOTAL = env('BENCH_MAILBOX_MSGS', 24_000);
const SINGLE = env('BENCH_MAILBOX_SINGLE_MSGS', 10_000);
const WINDOW = env('BENCH_MAILBOX_WINDOW', 1);
const PIPELINE = env('BENCH_MAILBOX_PIPELINE', 64);
const WAKE_SAMPLES = env('BENCH_WAKE_SAMPLES', 60);
const NAIVE_WAKE_SECONDS = env('BENCH_NAIVE_WAKE_SECONDS', 25);
/** The tutorial's consumer poll; the concurrent test polls faster (below) to finish in time. */
const TUTORIAL_POLL_MS = 5000;
const NAIVE_FAST_POLL_MS = 10;
const FIXTURES = join(__dirname, 'fixtures');
const READER = 'reader';

async function tempRoot(tag: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `bench-mailbox-${tag}-`));
}

/** What the reader saw, keyed by `<writer>:<seq>` contents. */
class Tally {
  private seen = new Map<string, number>();
  private lastSeq = new Map<string, number>();
  deliveries = 0;
  reordered = 0;
  torn = 0;
  lastDeliveryMs = 0;

  record(content: string): void {
    this.deliveries++;
    this.seen.set(content, (this.seen.get(content) ?? 0) + 1);
    const colon = content.lastIndexOf(':');
    const writer = content.slice(0, colon);
    const seq = Number(content.slice(colon + 1));
    // Per-sender order: a sequence number below one already delivered is out of order.
    if (seq < (this.lastSeq.get(writer) ?? -1)) this.reordered++;
    else this.lastSeq.set(writer, seq);
    this.lastDeliveryMs = wallMs();
  }

  get unique(): number {
    return this.seen.size;
  }
}

interface LoadResult {
  sent: number;
  errors: number;
  startMs: number;
  sendEndMs: number;
}

/** Starts `writers` writer processes held at a barrier, releases them together. */
async function startWriters(
  impl: 'ours' | 'naive',
  root: string,
  writers: number,
  total: number,
  window: number,
): Promise<{ done: Promise<LoadResult> }> {
  const per = Math.ceil(total / writers);
  const children: Array<Child<WriterResult>> = [];
  for (let i = 0; i < writers; i++) {
    children.push(startChild<WriterResult>(join(FIXTURES, 'writer.js'), [impl, root, `w${i}`, READER, String(per), String(window)]));
  }
  await startTogether(children);
  // Wrapped: an async function cannot hand back a still-pending promise (it would be awaited).
  const done = Promise.all(children.map((c) => c.done)).then((rs) => ({
    sent: rs.reduce((a, r) => a + r.sent, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    startMs: Math.min(...rs.map((r) => r.startMs)),
    sendEndMs: Math.max(...rs.map((r) => r.endMs)),
  }));
  return { done };
}

function concurrentFigures(load: LoadResult, tally: Tally, writers: number, window: number): Figures {
  const seconds = (tally.lastDeliveryMs - load.startMs) / 1000;
  return {
    sent: load.sent,
    delivered: tally.unique,
    lost: load.sent - tally.unique,
    duplicated: tally.deliveries - tally.unique,
    reordered: tally.reordered,
    msgs_per_s: Math.round(tally.unique / seconds),
    send_msgs_per_s: Math.round(load.sent / ((load.sendEndMs - load.startMs) / 1000)),
    writers,
    window,
    send_errors: load.errors,
  };
}

/** Ours: writers send through Mailbox.send; the reader consumes with unread + ack, woken by subscribe. */
async function concurrentOurs(writers: number, total: number, window: number): Promise<Figures> {
  const root = await tempRoot('ours');
  const team = await new Team(root).init();
  try {
    await team.spawnMember(READER, 'bench reader');
    const tally = new Tally();
    let wake: (() => void) | null = null;
    const sub = await team.mailbox.subscribe(READER, () => wake?.());
    let writersDone = false;
    const { done: loadP } = await startWriters('ours', root, writers, total, window);
    void loadP.then(() => (writersDone = true), () => (writersDone = true));
    let known = 0;
    for (;;) {
      // Sampled before reading: an empty read after all sends were acknowledged means done.
      const finished = writersDone;
      const d = await team.mailbox.unread(READER, known);
      if (d.messages.length) {
        for (const m of d.messages) tally.record(m.content);
        known = d.cursor;
        await team.mailbox.ack(READER, d.cursor);
        continue;
      }
      if (finished) break;
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
      wake = null;
    }
    sub.dispose();
    return concurrentFigures(await loadP, tally, writers, window);
  } finally {
    team.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/** Naive: writers append; the reader polls read-then-truncate every NAIVE_FAST_POLL_MS. */
async function concurrentNaive(writers: number, total: number, window: number): Promise<Figures> {
  const root = await tempRoot('naive');
  const box = new NaiveMailbox(root);
  try {
    await new Team(root).init(); // same directory layout; the naive code uses none of the engine
    const tally = new Tally();
    let writersDone = false;
    const { done: loadP } = await startWriters('naive', root, writers, total, window);
    void loadP.then(() => (writersDone = true), () => (writersDone = true));
    for (;;) {
      const finished = writersDone;
      const { messages, torn } = await box.readInbox(READER);
      tally.torn += torn;
      for (const m of messages) tally.record(m.content);
      if (finished && messages.length === 0) break;
      await sleep(NAIVE_FAST_POLL_MS);
    }
    return { ...concurrentFigures(await loadP, tally, writers, window), poll_ms: NAIVE_FAST_POLL_MS, torn_lines: tally.torn };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

interface WakeSample {
  seq: number;
  sentAt: number;
}

/** Ours: one message at a time from another process; latency = first callback after the send. */
async function wakeOurs(samples: number): Promise<Figures> {
  const root = await tempRoot('wake-ours');
  const team = await new Team(root).init();
  try {
    await team.spawnMember(READER, 'bench reader');
    const callbacks: number[] = [];
    const delivered = new Map<number, number>(); // seq → time the message was read
    let onDelivered: (() => void) | null = null;
    let reading = false;
    let again = false;
    let known = 0;
    const received: WakeSample[] = [];
    // Reads what the callback announced, as an agent loop woken by it would.
    const drain = async (): Promise<void> => {
      if (reading) return void (again = true);
      reading = true;
      do {
        again = false;
        const d = await team.mailbox.unread(READER, known);
        const at = wallMs();
        for (const m of d.messages) {
          const s = JSON.parse(m.content) as WakeSample;
          received.push(s);
          delivered.set(s.seq, at);
        }
        if (d.messages.length) {
          known = d.cursor;
          await team.mailbox.ack(READER, d.cursor);
          onDelivered?.();
        }
      } while (again);
      reading = false;
    };
    const sub = await team.mailbox.subscribe(READER, () => {
      callbacks.push(wallMs());
      void drain();
    });
    const sender = startChild<{ sent: number }>(join(FIXTURES, 'wake-sender.js'), ['ours', root, 'pinger', READER]);
    await startTogether([sender]);
    let missed = 0;
    for (let seq = 0; seq < samples; seq++) {
      // Random idle gaps so sends do not fall into a rhythm with anything else.
      await sleep(10 + Math.random() * 30);
      const got = new Promise<boolean>((resolve) => {
        onDelivered = () => delivered.has(seq) && resolve(true);
        setTimeout(() => resolve(false), 2000);
      });
      sender.send({ type: 'send', seq });
      if (!(await got)) missed++;
      onDelivered = null;
    }
    sender.send({ type: 'stop' });
    await sender.done;
    sub.dispose();
    const wakeMs: number[] = [];
    const readMs: number[] = [];
    for (const s of received) {
      // The callback that announced this message is the first one at or after its send.
      const cb = callbacks.find((t) => t >= s.sentAt);
      if (cb !== undefined) wakeMs.push(cb - s.sentAt);
      readMs.push(delivered.get(s.seq)! - s.sentAt);
    }
    const w = latency(wakeMs);
    const r = latency(readMs);
    return { p50_ms: w.p50_ms, p99_ms: w.p99_ms, max_ms: w.max_ms, samples: w.samples, missed, read_p50_ms: r.p50_ms, read_p99_ms: r.p99_ms };
  } finally {
    team.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * Naive: a real 5 s poll. Sends are spread at random over NAIVE_WAKE_SECONDS so they land
 * at random phases of the poll (one message per poll period would always wait ~5 s and
 * overstate it); a message's latency is the time from its send until a poll returns it.
 */
async function wakeNaive(samples: number): Promise<Figures> {
  const root = await tempRoot('wake-naive');
  const box = new NaiveMailbox(root);
  try {
    await new Team(root).init();
    const sender = startChild<{ sent: number }>(join(FIXTURES, 'wake-sender.js'), ['naive', root, 'pinger', READER]);
    await startTogether([sender]);
    const latencies: number[] = [];
    let received = 0;
    let torn = 0;
    let stop = false;
    const poller = (async () => {
      while (!stop) {
        await sleep(TUTORIAL_POLL_MS);
        const { messages, torn: t } = await box.readInbox(READER);
        const at = wallMs();
        torn += t;
        for (const m of messages) {
          latencies.push(at - (JSON.parse(m.content) as WakeSample).sentAt);
          received++;
        }
      }
    })();
    const t0 = Date.now();
    const offsets = Array.from({ length: samples }, () => Math.random() * NAIVE_WAKE_SECONDS * 1000).sort((a, b) => a - b);
    for (let seq = 0; seq < samples; seq++) {
      await sleep(Math.max(0, t0 + offsets[seq]! - Date.now()));
      sender.send({ type: 'send', seq });
    }
    const deadline = Date.now() + 3 * TUTORIAL_POLL_MS;
    while (received < samples && Date.now() < deadline) await sleep(100);
    stop = true;
    sender.send({ type: 'stop' });
    await sender.done;
    await poller;
    const w = latency(latencies);
    return { p50_ms: w.p50_ms, p99_ms: w.p99_ms, max_ms: w.max_ms, samples: w.samples, missed: samples - received, poll_ms: TUTORIAL_POLL_MS, torn_lines: torn };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  console.log(`mailbox.concurrent: 8 writer processes × ${Math.ceil(TOTAL / 8)} messages, one in-process reader consuming concurrently`);
  console.log(`  writers await each send (window ${WINDOW}); naive reader polls every ${NAIVE_FAST_POLL_MS} ms, not the tutorial's ${TUTORIAL_POLL_MS / 1000} s, so the run finishes`);
  bench('mailbox.concurrent', 'ours', await concurrentOurs(8, TOTAL, WINDOW));
  bench('mailbox.concurrent', 'naive', await concurrentNaive(8, TOTAL, WINDOW));
  console.log(`mailbox.concurrent, single writer process × ${SINGLE} messages, awaiting each send (window ${WINDOW})`);
  bench('mailbox.concurrent', 'ours', await concurrentOurs(1, SINGLE, WINDOW));
  bench('mailbox.concurrent', 'naive', await concurrentNaive(1, SINGLE, WINDOW));
  // Up to PIPELINE sends in flight from one process: ours coalesces them into one append.
  console.log(`mailbox.concurrent, single writer process × ${SINGLE} messages, ${PIPELINE} sends in flight (window ${PIPELINE})`);
  bench('mailbox.concurrent', 'ours', await concurrentOurs(1, SINGLE, PIPELINE));
  bench('mailbox.concurrent', 'naive', await concurrentNaive(1, SINGLE, PIPELINE));

  console.log(`mailbox.wake: send in another process → subscriber callback, ${WAKE_SAMPLES} sends one at a time`);
  bench('mailbox.wake', 'ours', await wakeOurs(WAKE_SAMPLES));
  console.log(`  naive: real ${TUTORIAL_POLL_MS / 1000} s poll, ${WAKE_SAMPLES} sends spread at random over ${NAIVE_WAKE_SECONDS} s (measured, not computed)`);
  bench('mailbox.wake', 'naive', await wakeNaive(WAKE_SAMPLES));
  note(`mailbox benches took ${round((Date.now() - t0) / 1000, 1)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
