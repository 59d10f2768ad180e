// worktree.create_copy: a new worktree made ready with `copy: ["node_modules"]` (WorktreeManager
// create + copyIntoWorktree: GNU cp --reflink=auto on Linux) on a generated 20,000-file
// node_modules, against the two ways a teammate gets one without it, in the same run:
// `cp -r` of the same tree, and a fresh `npm ci` of the same dependencies from local
// tarballs (offline: 200 packages × 100 files, file: dependencies packed as .tgz, so npm
// extracts every file as it would from the registry; no network, no cache involved).
// Also the portable path (Node's fs.cp with COPYFILE_FICLONE, used off Linux).
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WorktreeManager } from '../src/core/worktree/manager';
import { copyIntoWorktree } from '../src/core/worktree/copy-in';
import { bench } from './lib/report';

const exec = promisify(execFile);
const RUNS = Number(process.env.WORKTREE_SETUP_BENCH_RUNS ?? 3);
const PACKAGES = 200;
const FILES_PER_PACKAGE = 99; // + package.json = 100 files a package, 20,000 in all
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com'];

const git = (cwd: string, ...args: string[]) => exec('git', [...ID, ...args], { cwd, maxBuffer: 64 << 20 });

/** 200 local packages packed as npm tarballs, a project depending on them, installed once (not timed). */
async function project(): Promise<{ root: string; files: number }> {
  const root = await mkdtemp(join(tmpdir(), 'wt-setup-bench-'));
  const packs = join(root, 'packs');
  await mkdir(packs);
  const deps: Record<string, string> = {};
  for (let p = 0; p < PACKAGES; p++) {
    const name = `bench-dep-${p}`;
    const dir = join(root, 'src-packages', name, 'package');
    await mkdir(join(dir, 'lib'), { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'lib/f0.js' }));
    await Promise.all(Array.from({ length: FILES_PER_PACKAGE }, (_, f) =>
      writeFile(join(dir, 'lib', `f${f}.js`), `// ${name} file ${f}\nmodule.exports = ${JSON.stringify('x'.repeat(200 + (f % 7) * 100))};\n`)));
    await exec('tar', ['-czf', join(packs, `${name}-1.0.0.tgz`), '-C', join(root, 'src-packages', name), 'package']);
    deps[name] = `file:packs/${name}-1.0.0.tgz`;
  }
  await rm(join(root, 'src-packages'), { recursive: true });
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'bench-project', version: '1.0.0', private: true, dependencies: deps }, null, 2));
  await writeFile(join(root, '.gitignore'), 'node_modules/\n');
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: root, maxBuffer: 64 << 20 });
  await git(root, 'init', '-q', '-b', 'main');
  await git(root, 'add', '-A');
  await git(root, 'commit', '-qm', 'project');
  const files = Number((await exec('sh', ['-c', 'find node_modules -type f | wc -l'], { cwd: root })).stdout.trim());
  return { root, files };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;

/** Whether this file system clones (copy-on-write): then ours copies no data at all. */
async function cowHere(dir: string): Promise<boolean> {
  await writeFile(join(dir, 'cow-probe'), 'x');
  return exec('cp', ['--reflink=always', join(dir, 'cow-probe'), join(dir, 'cow-probe2')]).then(() => true, () => false);
}

async function main(): Promise<void> {
  const { root, files } = await project();
  const wm = new WorktreeManager(root);
  const samples = { ours: [] as number[], oursCopy: [] as number[], fsCp: [] as number[], cpR: [] as number[], cpRCopy: [] as number[], npmCi: [] as number[] };
  try {
    for (let i = 0; i < RUNS; i++) {
      // Ours: the worktree as the runtime makes it, then the copy step of its setup.
      const oursStep = async () => {
        let copyMs = 0;
        samples.ours.push(await timed(async () => {
          const w = await wm.create(`ours${i}`);
          const r = await copyIntoWorktree(root, w.workdir, ['node_modules'], 600_000);
          if (r.problems.length || !r.copied.length) throw new Error(`copy failed: ${r.problems.join('; ')}`);
          copyMs = r.ms;
        }));
        samples.oursCopy.push(copyMs);
      };
      // Naive 1: a bare worktree, then cp -r (the copy alone timed too: like for like with copy_ms).
      const cpPath = join(root, '.bench', `cp${i}`);
      const cpStep = async () => {
        samples.cpR.push(await timed(async () => {
          await git(root, 'worktree', 'add', '-q', '-b', `cp/${i}`, cpPath, 'HEAD');
          samples.cpRCopy.push(await timed(() => exec('cp', ['-r', join(root, 'node_modules'), join(cpPath, 'node_modules')])));
        }));
      };
      // The order alternates, and the disk's dirty pages are written back before each step: the
      // step that ran first after the last iteration's deletions was paying for them.
      for (const step of i % 2 ? [cpStep, oursStep] : [oursStep, cpStep]) {
        await exec('sync');
        await step();
      }
      await wm.remove(`ours${i}`, { force: true });

      // The portable path (fs.cp, COPYFILE_FICLONE), timed on the copy alone.
      const fsDst = join(root, '.bench', `fscp${i}`);
      samples.fsCp.push(await timed(() => cp(join(root, 'node_modules'), fsDst, {
        recursive: true, verbatimSymlinks: true, preserveTimestamps: true, mode: constants.COPYFILE_FICLONE,
      })));

      // Naive 2: a bare worktree, then what the teammate would run: npm ci (offline, same lock).
      const ciPath = join(root, '.bench', `ci${i}`);
      samples.npmCi.push(await timed(async () => {
        await git(root, 'worktree', 'add', '-q', '-b', `ci/${i}`, ciPath, 'HEAD');
        await exec('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: ciPath, maxBuffer: 64 << 20 });
      }));
      const installed = Number((await exec('sh', ['-c', 'find node_modules -type f | wc -l'], { cwd: ciPath })).stdout.trim());
      if (installed !== files) throw new Error(`npm ci installed ${installed} files, expected ${files}`);
      await rm(join(root, '.bench'), { recursive: true, force: true });
      await git(root, 'worktree', 'prune');
    }
    const cow = await cowHere(root);
    const ours = median(samples.ours);
    const cpR = median(samples.cpR);
    const npmCi = median(samples.npmCi);
    bench('worktree.create_copy', 'ours', {
      files, ms: ours, copy_ms: median(samples.oursCopy), fs_cp_ms: median(samples.fsCp), cp_r_ms: cpR, cp_r_copy_ms: median(samples.cpRCopy), npm_ci_ms: npmCi,
      vs_npm_ci: npmCi / ours, vs_cp_r: cpR / ours, copy_vs_cp_r_copy: median(samples.cpRCopy) / median(samples.oursCopy), copy_on_write: cow, runs: RUNS,
    });
    bench('worktree.create_copy', 'naive', { method: 'cp -r', files, ms: cpR, runs: RUNS });
    bench('worktree.create_copy', 'naive', { method: 'npm ci', files, ms: npmCi, runs: RUNS });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
