// Worktree lifecycle timings on a small real repository: create, merge (one committed edit,
// --no-ff) and remove through WorktreeManager ("ours"), against the same git commands run
// bare with no index, lock, event log or checks ("naive", the tutorial's s12 approach).
// The difference is the price of the bookkeeping and safety checks.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorktreeManager } from '../src/core/worktree/manager';

const RUNS = Number(process.env.WORKTREE_BENCH_RUNS ?? 10);
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com'];

function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...ID, ...args], { cwd }, (err, stdout, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}

async function repo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wt-bench-'));
  await git(dir, 'init', '-q', '-b', 'main');
  for (let i = 0; i < 50; i++) await writeFile(join(dir, `file${i}.txt`), `line ${i}\n`.repeat(40));
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-qm', 'init');
  return dir;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function stats(samples: number[]): { ms: number; p50_ms: number; max_ms: number; runs: number } {
  const s = [...samples].sort((a, b) => a - b);
  const p50 = s[Math.floor((s.length - 1) / 2)] ?? 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { ms: round(p50), p50_ms: round(p50), max_ms: round(s[s.length - 1] ?? 0), runs: s.length };
}

type Phase = 'create' | 'merge' | 'remove';
type Samples = Record<Phase, number[]>;

async function runOurs(root: string): Promise<Samples> {
  const m = new WorktreeManager(root);
  await m.reconcile();
  const out: Samples = { create: [], merge: [], remove: [] };
  for (let i = 0; i < RUNS; i++) {
    const name = `bench${i}`;
    let path = '';
    out.create.push(await timed(async () => { path = (await m.create(name)).path; }));
    await writeFile(join(path, `file${i}.txt`), `changed by ${name}\n`);
    await git(path, 'commit', '-qam', `edit ${i}`);
    out.merge.push(await timed(() => m.merge(name)));
    out.remove.push(await timed(() => m.remove(name)));
  }
  return out;
}

async function runNaive(root: string): Promise<Samples> {
  const out: Samples = { create: [], merge: [], remove: [] };
  for (let i = 0; i < RUNS; i++) {
    const branch = `naive/${i}`;
    const path = join(root, '.naive', String(i));
    out.create.push(await timed(() => git(root, 'worktree', 'add', '-q', '-b', branch, path, 'HEAD')));
    await writeFile(join(path, `file${i}.txt`), `changed naively ${i}\n`);
    await git(path, 'commit', '-qam', `edit ${i}`);
    out.merge.push(await timed(() => git(root, 'merge', '--no-ff', '--no-edit', '-q', branch)));
    out.remove.push(await timed(async () => {
      await git(root, 'worktree', 'remove', path);
      await git(root, 'branch', '-D', branch);
    }));
  }
  return out;
}

async function main(): Promise<void> {
  const results: Array<[string, Samples]> = [];
  for (const [impl, run] of [['ours', runOurs], ['naive', runNaive]] as const) {
    const root = await repo();
    try {
      results.push([impl, await run(root)]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  console.log(`worktree lifecycle, ${RUNS} runs each, 50-file repository (median ms)`);
  for (const [impl, samples] of results) {
    for (const phase of ['create', 'merge', 'remove'] as const) {
      console.log(`BENCH ${JSON.stringify({ name: `worktree.${phase}`, impl, ...stats(samples[phase]) })}`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
