// runtime.loop_lag on a large board (issue 12, item 8): the loop lag of the process hosting the
// runtime while 12 teammates work a 1,300-task board (6 more idle, looking for work at each change) as fast as the fake API answers (each
// round a task change, a message or a task read; see fixtures/busy-board.ts). A periodic
// stall (the board re-read whole every few seconds) shows in the per-second maxima, so those
// are reported beside the pooled p99. Target: p99 < 50 ms.
// Tunables (env): BENCH_BOARD_TEAMMATES (12), BENCH_BOARD_IDLE (6), BENCH_BOARD_TASKS (1300), BENCH_BOARD_SECONDS (40).
import { bench, note, percentile, round } from './lib/report';
import { sampleLag } from './lib/lag';
import { noteMachine, sleep } from './fixtures/runtime-common';
import { spawnAll, startBusyBoard } from './fixtures/busy-board';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const TEAMMATES = env('BENCH_BOARD_TEAMMATES', 12);
const IDLE = env('BENCH_BOARD_IDLE', 6);
const TASKS = env('BENCH_BOARD_TASKS', 1300);
const SECONDS = env('BENCH_BOARD_SECONDS', 40);

async function main(): Promise<void> {
  noteMachine();
  const b = await startBusyBoard({ teammates: TEAMMATES, idle: IDLE, tasks: TASKS, cycles: Math.ceil((SECONDS * 200) / TEAMMATES / 4) });
  const lag = sampleLag(2);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await spawnAll(b);
  await sleep(SECONDS * 1000);
  lag.stop();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const requests = await b.requests();
  await b.close();
  // The first second holds the spawns; every later one is steady state.
  const seconds = lag.bySecond.slice(1).filter((s) => s?.length);
  const secP99 = seconds.map((s) => percentile(s, 99));
  const secMax = seconds.map((s) => Math.max(...s));
  const stalls = secMax.filter((m) => m > 100).length;
  note(`${TEAMMATES} teammates working, ${IDLE} idle, ${TASKS} tasks, ${requests} model calls in ${round(wall / 1000, 1)} s (${round(requests / (wall / 1000), 1)}/s); process CPU ${round(((cpu.user + cpu.system) / 1000 / wall) * 100, 0)}% of one core`);
  note(`per-second max lag (ms): ${secMax.map((x) => Math.round(x)).join(' ')}`);
  bench('runtime.loop_lag', 'ours', {
    board_tasks: TASKS, teammates: TEAMMATES, idle_teammates: IDLE, calls_per_s: requests / (wall / 1000),
    p99_ms: percentile(lag.ticks, 99), max_ms: Math.max(...lag.ticks),
    cpu_corrected_p99_ms: percentile(lag.blocked, 99), cpu_corrected_max_ms: Math.max(...lag.blocked),
    second_p99_median_ms: percentile(secP99, 50), seconds_over_100ms: stalls, seconds: seconds.length,
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
