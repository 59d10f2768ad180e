// tools.grep_ms and tools.glob_ms (docs/tools.md): our grep and glob tools on a generated
// tree of 20 000 files, against `grep -rn` and `find` on the same tree in the same run.
// Each figure is the median of several warm runs (the tree is in the page cache for both).
// Tunables (env): BENCH_TOOL_FILES (20000), BENCH_TOOL_RUNS (7).
import { spawn } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceFs } from '../src/core/exec/workspace-fs';
import { glob, grep } from '../src/core/exec/search/search';
import { linkVerdict } from '../src/core/runtime/tools/read-guard';
import { bench, note, percentile } from './lib/report';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const FILES = env('BENCH_TOOL_FILES', 20_000);
const RUNS = env('BENCH_TOOL_RUNS', 7);
const PER_DIR = 100;

async function generate(root: string): Promise<number> {
  let needles = 0;
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = join(root, `pkg${d % 20}`, `mod${d}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: PER_DIR }, (_, f) => {
      const i = d * PER_DIR + f;
      const lines = Array.from({ length: 40 }, (_, l) => `export const value_${i}_${l} = compute(${l}, "text of line ${l} in file ${i}");`);
      if (i % 50 === 0) { lines[7] = `// TODO needle ${i}`; needles++; }
      return writeFile(join(dir, `file${f}.${f % 3 === 0 ? 'md' : 'ts'}`), `${lines.join('\n')}\n`);
    }));
  }
  return needles;
}

function timeProcess(cmd: string, args: string[]): Promise<{ ms: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let lines = 0;
    child.stdout.on('data', (b: Buffer) => { for (const c of b) if (c === 10) lines++; });
    child.on('error', reject);
    child.on('close', () => resolve({ ms: performance.now() - started, lines }));
  });
}

async function median(run: () => Promise<number>): Promise<number> {
  await run(); // warm-up: page cache, worker start
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await run());
  return percentile(samples, 50);
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-bench-tools-'));
  try {
    const needles = await generate(root);
    note(`generated ${FILES} files (${needles} with a match) in ${root}`);
    const ctx = { fs: new WorkspaceFs(root) };
    let matches = 0;
    const grepMs = await median(async () => {
      const t = performance.now();
      const out = await grep(ctx, { pattern: 'TODO needle \\d+', max_results: 1000 });
      matches = out.split('\n').filter((l) => /:\d+:/.test(l)).length;
      return performance.now() - t;
    });
    let baseMatches = 0;
    const grepBase = await median(async () => {
      const r = await timeProcess('grep', ['-rnE', 'TODO needle [0-9]+', root]);
      baseMatches = r.lines;
      return r.ms;
    });
    if (matches !== baseMatches) throw new Error(`grep found ${matches}, grep -rn ${baseMatches}`);
    bench('tools.grep_ms', 'ours', { files: FILES, matches, ms: grepMs, baseline_ms: grepBase, ratio: grepMs / grepBase });

    let found = 0;
    const globMs = await median(async () => {
      const t = performance.now();
      const out = await glob(ctx, { pattern: '**/*.md' });
      found = Number(/of (\d+) paths/.exec(out)?.[1] ?? out.split('\n').length);
      return performance.now() - t;
    });
    let baseFound = 0;
    const globBase = await median(async () => {
      const r = await timeProcess('find', [root, '-type', 'f', '-name', '*.md']);
      baseFound = r.lines;
      return r.ms;
    });
    if (found !== baseFound) throw new Error(`glob found ${found}, find ${baseFound}`);
    bench('tools.glob_ms', 'ours', { files: FILES, matched: found, ms: globMs, baseline_ms: globBase, ratio: globMs / globBase });

    // With Read rules, found files are judged by real path and identity too (read-guard.ts):
    // grep reuses the stat it has, glob stats what it shows, and a file with a second hard
    // link makes one walk of the tree for the identities the rules name (reused for 10 s).
    const rules = { allow: [], ask: [], deny: ['Read(.env)'] };
    const guarded = { ...ctx, hidden: (rel: string) => rel.endsWith('.env'), linkVerdict: linkVerdict(root, rules) };
    const grepRules = await median(async () => {
      const t = performance.now();
      await grep(guarded, { pattern: 'TODO needle \\d+', max_results: 1000 });
      return performance.now() - t;
    });
    bench('tools.grep_ms', 'ours', { read_rules: 'deny', files: FILES, matches, ms: grepRules, baseline_ms: grepMs, ratio: grepRules / grepMs });
    const globRules = await median(async () => {
      const t = performance.now();
      await glob(guarded, { pattern: '**/*.md' });
      return performance.now() - t;
    });
    bench('tools.glob_ms', 'ours', { read_rules: 'deny', files: FILES, matched: found, ms: globRules, baseline_ms: globMs, ratio: globRules / globMs });
    await link(join(root, 'pkg0', 'mod0', 'file0.md'), join(root, 'hardlinked.md'));
    const coldScan = performance.now();
    await grep({ ...guarded, linkVerdict: linkVerdict(root, { ...rules, deny: ['Read(.env)', 'Read(secret/**)'] }) }, { pattern: 'TODO needle \\d+', max_results: 1000 });
    bench('tools.grep_ms', 'ours', { read_rules: 'deny, a hard link among the matches, first call (identity walk)', files: FILES, ms: performance.now() - coldScan, baseline_ms: grepMs });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  process.exit(0);
}

void main();
