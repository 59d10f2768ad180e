// queue.prepare_ms (SPEC §23): the merge queue's scratch checkout made ready to test an npm
// project, as the queue makes it (src/core/merge/scratch.ts): `shared` — nothing
// configured, the main checkout's git-ignored node_modules linked in — against `setup` —
// worktree.setup = `npm ci` (offline, from local tarballs: no network) run in the queue's
// sandbox box. The fixture: PACKAGES small packages packed with `npm pack` and installed from
// their tarballs, the lockfile committed. Each figure: the scratch checkout made
// (`git worktree add`) and prepared, median of RUNS.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScratchCheckout } from '../src/core/merge/scratch';
import { repoInfo } from '../src/core/worktree/repo';
import { CommandSandbox } from '../src/core/sandbox/sandbox';
import { detectEngine } from '../src/core/sandbox/engine';
import { DEFAULT_SANDBOX } from '../src/shared/sandbox-schemas';
import { bench, percentile, round } from './lib/report';

const PACKAGES = Number(process.env.PREPARE_BENCH_PACKAGES ?? 30);
const RUNS = Number(process.env.PREPARE_BENCH_RUNS ?? 3);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 16 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}
const git = (cwd: string, ...args: string[]) => run('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], cwd);

/** An npm project whose PACKAGES dependencies come from tarballs in vendor/ (committed), installed in the main checkout. */
async function project(): Promise<{ root: string; cache: string }> {
  const root = await mkdtemp(join(tmpdir(), 'prep-bench-'));
  const cache = join(root, '..', `${root.split('/').pop()}-npm-cache`);
  const env = { ...process.env, npm_config_cache: cache, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  await mkdir(join(root, 'vendor'));
  const deps: Record<string, string> = {};
  for (let i = 0; i < PACKAGES; i++) {
    const dir = join(root, '..', `${root.split('/').pop()}-src-${i}`);
    await mkdir(join(dir, 'lib'), { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `bench-dep-${i}`, version: '1.0.0', main: 'lib/index.js' }));
    for (let f = 0; f < 20; f++) await writeFile(join(dir, 'lib', f ? `f${f}.js` : 'index.js'), `module.exports = ${JSON.stringify('x'.repeat(2000))};\n`);
    await run('npm', ['pack', '--silent', '--pack-destination', join(root, 'vendor')], dir, env);
    await rm(dir, { recursive: true, force: true });
    deps[`bench-dep-${i}`] = `file:vendor/bench-dep-${i}-1.0.0.tgz`;
  }
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'bench-project', version: '1.0.0', dependencies: deps }, null, 2));
  await writeFile(join(root, '.gitignore'), 'node_modules/\n');
  await run('npm', ['install', '--offline', '--silent'], root, env);
  await git(root, 'init', '-q', '-b', 'main');
  await git(root, 'add', '-A');
  await git(root, 'commit', '-qm', 'project');
  return { root, cache };
}

async function measure(root: string, setup: string[] | undefined, sandbox: CommandSandbox): Promise<{ ms: number; mode: string }> {
  const times: number[] = [];
  let mode = '';
  const head = (await git(root, 'rev-parse', 'HEAD')).trim();
  for (let k = 0; k < RUNS; k++) {
    const scratch = new ScratchCheckout(root);
    try {
      const t = performance.now();
      const r = await scratch.ready(await repoInfo(root, {}), head, { settings: () => (setup ? { worktreeSetup: { setup } } : {}), tests: sandbox }, new AbortController().signal);
      if ('failed' in r) throw new Error(`${r.failed.reason}\n${r.failed.output}`);
      // The test would require the dependencies: they are there.
      await run('node', ['-e', `require('bench-dep-${PACKAGES - 1}')`], r.workdir);
      times.push(performance.now() - t);
      mode = r.prepared.mode;
    } finally {
      await scratch.release();
    }
  }
  return { ms: percentile(times, 50), mode };
}

async function main(): Promise<void> {
  const { root, cache } = await project();
  const sandbox = new CommandSandbox({ root, settings: () => DEFAULT_SANDBOX, rules: () => undefined, notice: () => undefined });
  const engine = (await detectEngine()).engine ?? 'none';
  try {
    // The cache lives in the sandbox's own /tmp ($TMPDIR): filled from the tarballs, no network.
    const npmCi = 'npm ci --offline --no-audit --no-fund --cache "${TMPDIR:-/tmp}/npm-cache" >/dev/null';
    const shared = await measure(root, undefined, sandbox);
    const ci = await measure(root, [npmCi], sandbox);
    bench('queue.prepare_ms', 'ours', { ms: shared.ms, mode: shared.mode, packages: PACKAGES, sandbox: engine });
    bench('queue.prepare_ms', 'naive', { ms: ci.ms, mode: ci.mode, packages: PACKAGES, sandbox: engine });
    console.log(`queue scratch checkout ready for an npm project of ${PACKAGES} dependencies: ${round(shared.ms)} ms sharing the main checkout's node_modules vs ${round(ci.ms)} ms with npm ci (${round(ci.ms / shared.ms)}×)`);
  } finally {
    await sandbox.dispose();
    await rm(root, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
