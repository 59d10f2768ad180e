// runtime.loop_lag (issue 3, SPEC §8): event-loop lag of the process hosting the runtime while
// 8 teammates work at once, each scripted for 3 cycles of
//   bash `for i in $(seq 1 2000); do echo $i; done` → write_file ~100 KB → read_file it
// then `idle`. Target p99 < 20 ms.
// The fake Messages API runs in its own process (its JSON parsing and cache hashing of ~0.5 MB
// prompts is not ours to count). Two samplers run in this process:
// - perf_hooks.monitorEventLoopDelay (1 ms resolution): raw p99 of the loop delay;
// - a 2 ms timer drift sampler that also records how much CPU this process used during each
//   gap. On a shared, oversubscribed machine the OS can leave the whole process unscheduled
//   for 100+ ms while it uses ~1 ms of CPU; that is not the loop being blocked. A block can
//   last no longer than the CPU it burns, so min(drift, cpu) is the "CPU-corrected" lag.
// The scenario runs BENCH_RT_LAG_RUNS times (fresh workspace each) so the p99 rests on ~1000+
// ticks rather than a handful. Reported p99_ms is the drift sampler's wall p99 over all runs.
// Every synchronous ChildProcess#spawn is timed too: fork+exec runs on the loop thread.
// Tunables (env): BENCH_RT_LAG_TEAMMATES (8), BENCH_RT_LAG_CYCLES (3), BENCH_RT_LAG_KB (100),
// BENCH_RT_LAG_RUNS (3).
import { ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { bench, latency, note, percentile, round } from './lib/report';
import type { ScriptJson, StaticTurn } from '../test/fake-api';
import { allIdle, externalApi, noteMachine, startRuntime } from './fixtures/runtime-common';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const TEAMMATES = env('BENCH_RT_LAG_TEAMMATES', 8);
const CYCLES = env('BENCH_RT_LAG_CYCLES', 3);
const KB = env('BENCH_RT_LAG_KB', 100);
const REPEATS = env('BENCH_RT_LAG_RUNS', 3);

const tool = (name: string, input: unknown): StaticTurn => ({ type: 'reply', content: [{ type: 'tool_use', name, input }] });

function bigText(name: string, cycle: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < KB * 1024; i++) {
    const line = `${name} cycle ${cycle} line ${i}: ${'abcdefghijklmnopqrstuvwxyz'.slice(i % 26)}${i * 31337}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function script(names: string[]): ScriptJson {
  const agents: Record<string, StaticTurn[]> = {};
  for (const name of names) {
    const turns: StaticTurn[] = [];
    for (let c = 0; c < CYCLES; c++) {
      const file = `work/${name}-${c}.txt`;
      turns.push(tool('bash', { command: 'for i in $(seq 1 2000); do echo $i; done' }));
      turns.push(tool('write_file', { path: file, content: bigText(name, c) }));
      turns.push(tool('read_file', { path: file }));
    }
    turns.push(tool('idle', {}));
    agents[name] = turns;
  }
  return { agents, default: { type: 'reply', content: [{ type: 'tool_use', name: 'idle', input: {} }] } };
}

/** Wall time of each synchronous ChildProcess#spawn (fork/exec happens on the loop thread). */
const spawnMs: number[] = [];
let timeSpawns = false;
// Not in @types/node: the internal method child_process.spawn() calls to fork+exec.
const proto = ChildProcess.prototype as unknown as { spawn: (...args: unknown[]) => unknown };
const origSpawn = proto.spawn;
proto.spawn = function (this: ChildProcess, ...args: unknown[]) {
  const t = performance.now();
  try {
    return origSpawn.apply(this, args);
  } finally {
    if (timeSpawns) spawnMs.push(performance.now() - t);
  }
};

interface Samples {
  drift: number[];
  blocked: number[];
  hist: number[];
  histMax: number;
  wallMs: number;
  cpuMs: number;
  requests: number;
}

async function once(rep: number, out: Samples): Promise<void> {
  const names = Array.from({ length: TEAMMATES }, (_, i) => `busy${i + 1}`);
  const api = await externalApi(script(names));
  const ours = await startRuntime(api.url);
  const rounds = CYCLES * 3 + 1;
  const hist = monitorEventLoopDelay({ resolution: 1 });
  let running = true;
  const INTERVAL = 2;
  const schedule = () => {
    const expected = performance.now() + INTERVAL;
    const cpu0 = process.cpuUsage();
    setTimeout(() => {
      const lag = Math.max(0, performance.now() - expected);
      const cpu = process.cpuUsage(cpu0);
      out.drift.push(lag);
      out.blocked.push(Math.min(lag, (cpu.user + cpu.system) / 1000));
      if (running) schedule();
    }, INTERVAL);
  };
  const cpuStart = process.cpuUsage();
  const t0 = performance.now();
  timeSpawns = true;
  hist.enable();
  schedule();
  await Promise.all(names.map((name) => ours.rt.spawnTeammate({ name, role: 'builder', prompt: 'Run the build steps.' })));
  await allIdle(ours.rt, names, 120_000);
  running = false;
  hist.disable();
  timeSpawns = false;
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuStart);
  const u = (await api.usage()).total;
  if (u.requests < TEAMMATES * rounds) throw new Error(`only ${u.requests} of ${TEAMMATES * rounds} model requests were made`);
  // Keep the histogram's percentiles comparable across repetitions: sample its distribution.
  for (const p of [50, 90, 95, 99, 99.9]) out.hist.push(hist.percentile(p) / 1e6);
  out.histMax = Math.max(out.histMax, hist.max / 1e6);
  out.wallMs += wallMs;
  out.cpuMs += (cpu.user + cpu.system) / 1000;
  out.requests += u.requests;
  note(
    `run ${rep + 1}: ${TEAMMATES} teammates × ${rounds} rounds (${u.requests} requests) in ${round(wallMs / 1000, 2)} s; ` +
      `monitorEventLoopDelay p99 ${round(hist.percentile(99) / 1e6)} ms, max ${round(hist.max / 1e6)} ms; ` +
      `process CPU ${round(((cpu.user + cpu.system) / 1000 / wallMs) * 100, 0)}% of one core`,
  );
  await ours.close();
  await api.close();
}

async function main(): Promise<void> {
  noteMachine();
  const s: Samples = { drift: [], blocked: [], hist: [], histMax: 0, wallMs: 0, cpuMs: 0, requests: 0 };
  // Raw p99 per run, from perf_hooks; the drift sampler pools all runs' ticks.
  const histP99: number[] = [];
  for (let rep = 0; rep < REPEATS; rep++) {
    const before = s.hist.length;
    await once(rep, s);
    histP99.push(s.hist[before + 3]!);
  }
  const p99 = percentile(s.drift, 99);
  const p99cpu = percentile(s.blocked, 99);
  const histP99Median = percentile(histP99, 50);
  note(`monitorEventLoopDelay p99 per run: ${histP99.map((x) => round(x)).join(', ')} ms (median ${round(histP99Median)}), max ${round(s.histMax)} ms`);
  note(
    `2 ms drift sampler (${s.drift.length} ticks over ${REPEATS} runs): wall p99 ${round(p99)} ms, max ${round(Math.max(...s.drift))} ms; ` +
      `CPU-corrected p99 ${round(p99cpu)} ms, max ${round(Math.max(...s.blocked))} ms`,
  );
  const sp = latency(spawnMs);
  note(`synchronous ChildProcess#spawn (fork+exec of bash on the loop thread): ${sp.samples} calls, p50 ${round(sp.p50_ms)} ms, max ${round(sp.max_ms)} ms`);
  bench('runtime.loop_lag', 'ours', {
    teammates: TEAMMATES, p99_ms: p99, max_ms: Math.max(...s.drift), cpu_corrected_p99_ms: p99cpu,
    cpu_corrected_max_ms: Math.max(...s.blocked), eld_p99_ms: histP99Median, ticks: s.drift.length,
    rounds: CYCLES * 3 + 1, runs: REPEATS, spawn_sync_p50_ms: sp.p50_ms, spawn_sync_max_ms: sp.max_ms,
    cpu_share: s.cpuMs / s.wallMs,
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
