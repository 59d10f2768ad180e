// hooks.overhead_ms (docs/hooks.md): the p50 of one tool call (the bash tool's engine
// running `true`) with a no-op PreToolUse hook (`true`, matched on Bash) beside the same call
// with no hooks, in the same run. The naive row runs the same hook with spawnSync, as a
// simple hook runner would: no faster per call, but the host's loop stands still while it
// runs (loop_max_gap_ms). Tunables (env): BENCH_HOOK_CALLS (50).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hooks } from '../src/core/hooks/hooks';
import { withToolHooks, type HookedAgent } from '../src/core/hooks/tool-hooks';
import { runShell } from '../src/core/exec/shell';
import type { Approver } from '../src/core/runtime/types';
import { bench, note, percentile } from './lib/report';

const N = process.env.BENCH_HOOK_CALLS ? Number(process.env.BENCH_HOOK_CALLS) : 50;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-hooks-bench-'));
  await mkdir(join(root, '.claude'));
  await writeFile(join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] } }));
  const hooks = new Hooks({ root, sessionId: 'bench', trusted: true, warn: (m) => console.error(m) });
  await hooks.load();
  const agent: HookedAgent = {
    name: 'lead', cwd: root, signal: new AbortController().signal, hookApproved: false, setActivity: () => undefined,
    transcript: { path: join(root, 'lead.jsonl'), note: async () => undefined },
  };
  const approver: Approver = { bash: async () => 'deny' };
  const call = { id: 'toolu_1', name: 'bash', input: { command: 'true' } };
  const tool = async () => {
    const r = await runShell('true', { cwd: root, timeoutMs: 10_000, maxOutputBytes: 30_000 });
    return { text: r.output, isError: r.exitCode !== 0 };
  };
  // The host's loop: the longest it stood still while the calls ran.
  const gaps = () => {
    let last = performance.now();
    let max = 0;
    const t = setInterval(() => {
      const now = performance.now();
      max = Math.max(max, now - last);
      last = now;
    }, 1);
    return () => (clearInterval(t), max);
  };
  const measure = async (one: () => Promise<unknown>) => {
    for (let i = 0; i < 10; i++) await one(); // warm-up
    const stop = gaps();
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await one();
      samples.push(performance.now() - s);
    }
    return { p50_ms: percentile(samples, 50), p99_ms: percentile(samples, 99), loop_max_gap_ms: stop() };
  };
  // Alternated in rounds, so drift in the machine's load falls on both alike.
  const none: number[] = [];
  const hooked: number[] = [];
  const naive: number[] = [];
  const gapNone: number[] = [];
  const gapHooked: number[] = [];
  const gapNaive: number[] = [];
  for (let round = 0; round < 4; round++) {
    const a = await measure(() => withToolHooks(agent, { approver }, call, tool));
    const b = await measure(() => withToolHooks(agent, { hooks, approver }, call, tool));
    const c = await measure(async () => {
      spawnSync('/bin/bash', ['-c', 'true'], { input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: call.input }) });
      return tool();
    });
    none.push(a.p50_ms); hooked.push(b.p50_ms); naive.push(c.p50_ms);
    gapNone.push(a.loop_max_gap_ms); gapHooked.push(b.loop_max_gap_ms); gapNaive.push(c.loop_max_gap_ms);
  }
  const med = (xs: number[]) => percentile(xs, 50);
  bench('hooks.overhead_ms', 'ours', { hook: 'none', calls: N * 4, p50_ms: med(none), loop_max_gap_ms: Math.max(...gapNone) });
  bench('hooks.overhead_ms', 'ours', { hook: 'PreToolUse no-op', calls: N * 4, p50_ms: med(hooked), baseline_p50_ms: med(none), overhead_p50_ms: med(hooked) - med(none), loop_max_gap_ms: Math.max(...gapHooked) });
  bench('hooks.overhead_ms', 'naive', { hook: 'PreToolUse no-op (spawnSync)', calls: N * 4, p50_ms: med(naive), baseline_p50_ms: med(none), overhead_p50_ms: med(naive) - med(none), loop_max_gap_ms: Math.max(...gapNaive) });
  note(`target: overhead_p50_ms within 15 ms. p50 per round is the median of 4 alternated rounds of ${N} calls each.`);
  await rm(root, { recursive: true, force: true });
}

void main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
