// merge.queue_ms (SPEC §18): the merge queue integrating 10 worktree branches (each edits its
// own file) one at a time — the checks on add, the merge commit made in the object store, a
// scratch checkout moved to it, a trivial test command (`true`) run as agents' commands are (in
// the sandbox, or with it off), the fast-forward landing after a status check, the queue file's
// bookkeeping under its lock — against bare `git merge --no-ff` of the same branches in the
// checkout plus the same test command, in the same run: run plainly (`baseline_ms`, the
// figure the ratio is taken against) and through the same sandbox (`baseline_sandboxed_ms`).
// The difference is the price of never leaving a half-merge in the user's checkout and of
// landing only what passed its test.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MergeQueue } from '../src/core/merge/merge-queue';
import { runShell } from '../src/core/exec/shell';
import { CommandSandbox } from '../src/core/sandbox/sandbox';
import { detectEngine } from '../src/core/sandbox/engine';
import { DEFAULT_SANDBOX, type SandboxMode } from '../src/shared/sandbox-schemas';
import { Team } from '../src/core/team/team';
import { WorktreeManager } from '../src/core/worktree/manager';
import { bench, round } from './lib/report';

const BRANCHES = Number(process.env.MERGE_BENCH_BRANCHES ?? 10);
const TEST = 'true';
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com'];

function run(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}
const git = (cwd: string, ...args: string[]) => run('git', [...ID, ...args], cwd);

/** A repository of 50 files and BRANCHES worktrees `b<i>`, each with one commit changing file<i>. */
async function setup(): Promise<{ root: string; wm: WorktreeManager }> {
  const root = await mkdtemp(join(tmpdir(), 'mq-bench-'));
  await git(root, 'init', '-q', '-b', 'main');
  for (let i = 0; i < 50; i++) await writeFile(join(root, `file${i}.txt`), `line ${i}\n`.repeat(40));
  await git(root, 'add', '-A');
  await git(root, 'commit', '-qm', 'init');
  const wm = new WorktreeManager(root);
  for (let i = 0; i < BRANCHES; i++) {
    const w = await wm.create(`b${i}`);
    await writeFile(join(w.path, `file${i}.txt`), `changed by b${i}\n`);
    await git(w.path, 'commit', '-qam', `b${i}`);
  }
  return { root, wm };
}

/** `sandbox`: where the test command runs — 'auto' (the default: bubblewrap where the machine has it) or 'off'. */
async function ours(sandbox: SandboxMode): Promise<number> {
  const { root, wm } = await setup();
  const team = await new Team(root).init();
  const q = new MergeQueue({ team, worktrees: wm, hostId: 'bench', settings: () => ({ sandbox: { ...DEFAULT_SANDBOX, mode: sandbox } }) });
  try {
    const t = performance.now();
    q.start();
    for (let i = 0; i < BRANCHES; i++) await q.add(`b${i}`, { by: 'user', testCommand: TEST });
    // Until the worker has nothing left to do (no polling of the queue file: on a machine this
    // busy, reading it every few ms is load the naive loop does not carry).
    await q.idle();
    const ms = (performance.now() - t) / BRANCHES;
    const entries = await q.list();
    const unmerged = entries.filter((e) => e.state !== 'merged');
    if (entries.length !== BRANCHES || unmerged.length) throw new Error(`merge queue bench: ${unmerged.length} not merged: ${unmerged[0]?.state} ${unmerged[0]?.reason}`);
    return ms;
  } finally {
    await q.dispose();
    team.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/** `sandboxed`: the test command run as the queue runs it in the sandbox (same launch, same box), else `bash -c`. */
async function naive(sandboxed = false): Promise<number> {
  const { root } = await setup();
  const sb = sandboxed ? new CommandSandbox({ root, settings: () => DEFAULT_SANDBOX, rules: () => undefined, notice: () => undefined }) : null;
  try {
    await sb?.prepare('merge queue');
    const t = performance.now();
    for (let i = 0; i < BRANCHES; i++) {
      await git(root, 'merge', '--no-ff', '--no-edit', '-q', `wt/b${i}`);
      if (!sb) await run('bash', ['-c', TEST], root);
      else {
        const plan = await sb.launch(`b${i}`, root, TEST, { gitReadOnly: true, box: 'merge queue' });
        if ('refused' in plan) throw new Error(plan.refused);
        const r = await runShell(TEST, { cwd: root, timeoutMs: 60_000, maxOutputBytes: 30_000, plan });
        if (r.exitCode !== 0) throw new Error(`naive sandboxed test failed: ${r.output}`);
      }
    }
    return (performance.now() - t) / BRANCHES;
  } finally {
    await sb?.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // Interleaved, twice each, the better of two: one slow moment of a shared machine is not the design's.
  const o: number[] = [];
  const off: number[] = [];
  const n: number[] = [];
  const ns: number[] = [];
  const engine = (await detectEngine()).engine ?? 'none';
  for (let k = 0; k < 2; k++) {
    n.push(await naive());
    o.push(await ours('auto'));
    off.push(await ours('off'));
    if (engine !== 'none') ns.push(await naive(true));
  }
  const [msOurs, msOff, msNaive] = [Math.min(...o), Math.min(...off), Math.min(...n)];
  const msNaiveSandboxed = ns.length ? Math.min(...ns) : null;
  bench('merge.queue_ms', 'ours', {
    branches: BRANCHES, ms_per_merge: msOurs, sandbox: engine, ms_per_merge_sandbox_off: msOff, baseline_ms: msNaive, ...(msNaiveSandboxed !== null ? { baseline_sandboxed_ms: msNaiveSandboxed } : {}),
  });
  bench('merge.queue_ms', 'naive', { branches: BRANCHES, ms_per_merge: msNaive, ...(msNaiveSandboxed !== null ? { ms_per_merge_test_sandboxed: msNaiveSandboxed } : {}) });
  console.log(`merge queue: ${round(msOurs)} ms per branch (test in the sandbox: ${engine}; ${round(msOff)} ms with the sandbox off) `
    + `vs bare git merge + test ${round(msNaive)} ms (${round(msOurs / msNaive)}×; ${round(msOff / msNaive)}× sandbox off)`
    + (msNaiveSandboxed !== null ? `; bare git merge + the test in the same sandbox ${round(msNaiveSandboxed)} ms (${round(msOurs / msNaiveSandboxed)}× like for like)` : ''));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
