// runtime.soak_rss (issue 12, item 9): memory over a long run at a fixed size. The busy board
// of runtime.loop_lag (fixtures/busy-board.ts: 1,300 tasks, 12 working and 6 idle teammates)
// runs for BENCH_SOAK_SECONDS (150); conversations compact at BENCH_SOAK_COMPACT_TOKENS
// (20,000), as a long-running team's would, so nothing has a reason to grow. Every second the
// process's RSS and V8 heap are sampled; every 10 s the live heap after a full GC. Reported:
// the medians of the first and the last minute, and their ratio.
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { bench, note, percentile, round } from './lib/report';
import { noteMachine, sleep } from './fixtures/runtime-common';
import { spawnAll, startBusyBoard } from './fixtures/busy-board';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const SECONDS = env('BENCH_SOAK_SECONDS', 150);
const COMPACT = env('BENCH_SOAK_COMPACT_TOKENS', 20_000);
const MB = 2 ** 20;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function main(): Promise<void> {
  noteMachine();
  const b = await startBusyBoard({
    // Enough rounds for 150 calls/s (4 per cycle); a larger script only costs the fake's memory.
    teammates: 12, idle: 6, tasks: 1300, cycles: Math.ceil((SECONDS * 150) / 12 / 4), settings: { compactAtTokens: COMPACT, maxRounds: 1_000_000 },
  });
  const rss: number[] = [];
  const heap: number[] = [];
  const live: Array<[number, number]> = [];
  const calls: number[] = [];
  await spawnAll(b);
  const t0 = performance.now();
  for (let s = 1; s <= SECONDS; s++) {
    await sleep(Math.max(0, t0 + s * 1000 - performance.now()));
    const m = process.memoryUsage();
    rss.push(m.rss / MB);
    heap.push(m.heapUsed / MB);
    if (s % 10 === 0) {
      gc();
      live.push([s, process.memoryUsage().heapUsed / MB]);
      calls.push(await b.requests());
      note(`${s} s: ${calls.at(-1)} calls, rss ${round(m.rss / MB, 0)} MB, live heap ${round(live.at(-1)![1], 1)} MB`);
    }
  }
  const requests = await b.requests();
  await b.close();
  const first = (xs: number[]) => percentile(xs.slice(0, 60), 50);
  const last = (xs: number[]) => percentile(xs.slice(-60), 50);
  const liveFirst = percentile(live.filter(([s]) => s <= 60).map(([, v]) => v), 50);
  const liveLast = percentile(live.filter(([s]) => s > SECONDS - 60).map(([, v]) => v), 50);
  note(`${requests} model calls in ${SECONDS} s (${round(requests / SECONDS, 1)}/s)`);
  bench('runtime.soak_rss', 'ours', {
    seconds: SECONDS, calls: requests, board_tasks: 1300, teammates: 18,
    rss_first_min_mb: first(rss), rss_last_min_mb: last(rss), rss_growth: last(rss) / first(rss),
    heap_first_min_mb: first(heap), heap_last_min_mb: last(heap),
    live_heap_first_min_mb: liveFirst, live_heap_last_min_mb: liveLast, live_heap_growth: liveLast / liveFirst,
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
