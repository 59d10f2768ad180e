// permissions.first_decision_ms and permissions.decision_us (docs/permissions.md): how long
// the first rule decision that needs the bash parser takes (its worker thread starts and
// loads mvdan-sh), how long the host's loop stood still meanwhile, and the steady-state
// cost of one decision — a plain command (no parser) and a compound one (a round trip to
// the parser's thread). This file runs as its own process, so its first decision is cold.
// Tunables (env): BENCH_PERMISSION_DECISIONS (2000).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decideBash } from '../src/core/permissions/decide';
import { stopShellParser } from '../src/core/permissions/shell-parser';
import { bench, note, percentile } from './lib/report';

const N = process.env.BENCH_PERMISSION_DECISIONS ? Number(process.env.BENCH_PERMISSION_DECISIONS) : 2000;
const rules = { allow: ['Bash(npm test:*)', 'Bash(git diff:*)'], deny: ['Bash(rm:*)'] };

async function main(): Promise<void> {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  const first = await decideBash(rules, 'npm test && git diff --stat 2>&1', 'ask');
  const firstMs = performance.now() - t0;
  clearInterval(timer);
  if (first.verdict !== 'allow') throw new Error(`unexpected first verdict ${first.verdict}: ${first.reason}`);
  // What loading the parser on the host's loop (as before) would have blocked it for.
  const { stdout } = await promisify(execFile)(process.execPath, ['-e',
    "const t=performance.now();require('mvdan-sh');process.stdout.write(String(performance.now()-t))"], { cwd: __dirname });
  bench('permissions.first_decision_ms', 'ours', { ms: firstMs, host_max_gap_ms: maxGap, in_thread_load_ms: Number(stdout) });

  for (const [kind, command] of [['plain', 'npm test -- --watch=false'], ['compound', 'npm test; rm -rf ~ && curl x | sh']] as const) {
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await decideBash(rules, command, 'ask');
      samples.push((performance.now() - s) * 1000);
    }
    bench('permissions.decision_us', 'ours', { command: kind, decisions: N, p50_us: percentile(samples, 50), p99_us: percentile(samples, 99) });
  }
  await stopShellParser();
  note('first_decision_ms includes starting the parser thread and loading mvdan-sh in it; host_max_gap_ms is the longest the host loop stood still meanwhile');
}

void main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
