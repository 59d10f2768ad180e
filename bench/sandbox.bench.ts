// sandbox.exec_ms and sandbox.prompts (docs/security.md). exec_ms: `true` run through the
// sandbox (bubblewrap, its mounts, the proxy bridge) vs plainly (bash -c), in the same run.
// prompts: a fixed session of ordinary development commands judged by the real decision code
// (decideCommand, the same the bash tool uses, and the sandbox's host check for the hosts each
// command reaches), counting the questions the user gets sandboxed (autoAllow) and as before
// (no sandbox, toolApproval.bash = ask, no rules). Tunables (env): BENCH_SANDBOX_RUNS (100).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShell } from '../src/core/exec/shell';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../src/shared/sandbox-schemas';
import { decideCommand } from '../src/core/sandbox/decide-command';
import { CommandSandbox } from '../src/core/sandbox/sandbox';
import { bench, note, percentile } from './lib/report';

const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 100);

/** A morning's work: what it runs, and the hosts it reaches. */
const SESSION: Array<{ command: string; hosts?: Array<[string, number]>; background?: boolean }> = [
  { command: 'npm install', hosts: [['registry.npmjs.org', 443]] },
  { command: 'npm run build' },
  { command: 'npm test' },
  { command: 'npm test -- --watch=false src/app.test.ts' },
  { command: 'git status' },
  { command: 'git diff' },
  { command: 'git diff --stat HEAD~1' },
  { command: 'git add -A && git commit -m "Fix the parser"' },
  { command: 'grep -rn "TODO" src' },
  { command: 'ls -la src' },
  { command: 'cat package.json' },
  { command: 'npm run dev', background: true },
  { command: 'curl -s localhost:5173/', hosts: [['localhost', 5173]] },
  { command: 'npm install left-pad', hosts: [['registry.npmjs.org', 443]] },
  { command: 'npx tsc --noEmit' },
  { command: 'npm test 2>&1 | tail -20' },
];

async function execMs(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-bench-sandbox-'));
  // A repository, as a team's folder is: the git folder's guards and the nested-repository
  // check after each command (docs/security.md, "The policy table") are in the figure.
  await promisify(execFile)('git', ['init', '-q'], { cwd: root });
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX };
  const sandbox = new CommandSandbox({ root, settings: () => settings, rules: () => undefined, notice: () => undefined });
  try {
    const state = await sandbox.state();
    if (!state.active) {
      note(`sandbox.exec_ms skipped: ${state.engine.reason}`);
      return;
    }
    const opts = { cwd: root, timeoutMs: 10_000, maxOutputBytes: 10_000 };
    const checks: number[] = [];
    const once = async (sandboxed: boolean) => {
      const t = performance.now();
      const plan = sandboxed ? await sandbox.launch('lead', root, 'true') : undefined;
      if (plan && 'refused' in plan) throw new Error(plan.refused);
      const r = await runShell('true', { ...opts, plan });
      if (r.exitCode !== 0) throw new Error(`true failed: ${r.output}`);
      const ms = performance.now() - t;
      // The guards' removal and the nested-repository check run after the result is back (the
      // agent does not wait for them): timed apart, so that they are charged to neither sample.
      const c = performance.now();
      await sandbox.settled();
      if (sandboxed) checks.push(performance.now() - c);
      return ms;
    };
    for (let i = 0; i < 5; i++) { await once(true); await once(false); } // warm-up
    const inside: number[] = [];
    const plain: number[] = [];
    const cpu = { inside: 0, plain: 0 };
    // Interleaved, so both see the same load.
    for (let i = 0; i < RUNS; i++) {
      let c = await cpuMs();
      inside.push(await once(true));
      cpu.inside += (await cpuMs()) - c;
      c = await cpuMs();
      plain.push(await once(false));
      cpu.plain += (await cpuMs()) - c;
    }
    bench('sandbox.exec_ms', 'ours', {
      runs: RUNS, p50_ms: percentile(inside, 50), p99_ms: percentile(inside, 99), baseline_p50_ms: percentile(plain, 50),
      cpu_ms_per_run: cpu.inside / RUNS, baseline_cpu_ms_per_run: cpu.plain / RUNS, after_check_p50_ms: percentile(checks, 50), loadavg_1m: loadavg()[0]!,
    });
    bench('sandbox.exec_ms', 'naive', { runs: RUNS, p50_ms: percentile(plain, 50), p99_ms: percentile(plain, 99), cpu_ms_per_run: cpu.plain / RUNS });
    note('exec_ms includes working out the policy (git folder, control files), the spawn turn and bash; target: p50 within 25 ms of baseline_p50_ms');
    note('after_check_p50_ms: taking the guards\' mount points down and the nested-repository check after each sandboxed command (off the command\'s way back, untimed in p50_ms; its CPU is in cpu_ms_per_run)');
    note('cpu_ms_per_run: CPU time of this process and the processes it waited for (all of a command\'s), per command: unlike wall time, it does not grow with the machine\'s load');
  } finally {
    await sandbox.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/** CPU time (user + system) of this process and of its children it has waited for, in ms (/proc/self/stat). */
async function cpuMs(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14–17 (utime, stime, cutime, cstime) are f[11..14] after the command name; clock ticks of 10 ms.
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

async function prompts(): Promise<void> {
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX };
  let hostQuestions = 0;
  const sandbox = new CommandSandbox({
    root: tmpdir(), settings: () => settings, rules: () => undefined, notice: () => undefined,
    askNetwork: async () => (hostQuestions++, 'allow'),
  });
  const policy = { permissions: { allow: [], ask: [], deny: [] }, bashPolicy: 'ask' as const, sandbox: settings };
  let askedSandboxed = 0;
  let askedUnsandboxed = 0;
  for (const step of SESSION) {
    if ((await decideCommand(policy, step.command, { inside: true, unsandboxed: false })).verdict !== 'allow') askedSandboxed++;
    for (const [host, port] of step.hosts ?? []) await sandbox.allowHost('lead', host, port);
    if ((await decideCommand(policy, step.command, { inside: false, unsandboxed: false })).verdict !== 'allow') askedUnsandboxed++;
  }
  await sandbox.dispose();
  const asked = askedSandboxed + hostQuestions;
  bench('sandbox.prompts', 'ours', {
    commands: SESSION.length, asked_sandboxed: asked, asked_unsandboxed: askedUnsandboxed,
    command_questions: askedSandboxed, host_questions: hostQuestions, fewer_pct: 100 * (1 - asked / askedUnsandboxed),
  });
  bench('sandbox.prompts', 'naive', { commands: SESSION.length, asked: askedUnsandboxed });
  note('asked_sandboxed counts command questions plus each new host asked once (registry.npmjs.org, localhost:5173); allowedDomains empty as by default');
}

void (async () => {
  await execMs();
  await prompts();
})().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
