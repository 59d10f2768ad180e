// vscode.bundle_kb: size of the shipped (minified) bundles. vscode.activation_ms: loading the
// shipped extension bundle and running activate() in code-server's real extension host, on a
// workspace with a team (so activation reads roster, requests and tasks), over a few fresh
// servers (activation happens once per host). Targets: activation < 100 ms, and at most 30 ms
// over the floor: an empty extension with our manifest (activate() returns at once), the
// host's own cost of activating anything on this machine, timed in the same run, alternating
// with ours (VSCODE_BENCH_RUNS pairs, default 5). Each pair prints {ms, floor_ms,
// over_floor_ms}, then the medians. ready_ms: activation until the engine (core, zod, the
// team's files) is in and the views can show their rows (docs/activation.md).
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runExtensionHostTests } from '../test/e2e/harness/ext-host-tests';
import { repoRoot } from '../test/e2e/harness/paths';
import { seedTeam } from '../test/vscode/seed-team';
import { bench, percentile } from './lib/report';

const exec = promisify(execFile);
const RUNS = Number(process.env.VSCODE_BENCH_RUNS ?? 5);
const median = (xs: number[]) => percentile(xs, 50);

/** The shipped bundles, built as `npm run package` builds them, into `dir`. */
async function buildShipped(dir: string): Promise<{ extension: number; engine: number; sdk: number; webview: number }> {
  const root = repoRoot();
  await exec(process.execPath, [join(root, 'esbuild.mjs'), '--production', '--dist', join(dir, 'dist')], { cwd: root });
  await cp(join(root, 'package.json'), join(dir, 'package.json'));
  await cp(join(root, 'media'), join(dir, 'media'), { recursive: true });
  const size = async (f: string) => (await stat(join(dir, 'dist', f))).size;
  // Before the split (docs/activation.md) there was no engine.js: everything was in extension.js.
  const engine = await size('engine.js').catch(() => 0);
  return { extension: await size('extension.js'), engine, sdk: await size('anthropic-sdk.js'), webview: await size('webview/inbox.js') };
}

async function main(): Promise<void> {
  const ext = await mkdtemp(join(tmpdir(), 'agent-teams-bench-ext-'));
  try {
    const size = await buildShipped(ext);
    const kb = (n: number) => n / 1024;
    // extension_kb is what activation loads; engine_kb loads right after it; sdk_kb (the
    // Anthropic SDK) loads with the first agent.
    bench('vscode.bundle_kb', 'ours', {
      kb: kb(size.extension + size.engine + size.sdk + size.webview), extension_kb: kb(size.extension), engine_kb: kb(size.engine),
      sdk_kb: kb(size.sdk), webview_kb: kb(size.webview),
    });
    const floorExt = await mkdtemp(join(tmpdir(), 'agent-teams-bench-floor-'));
    try {
      await cp(join(ext, 'package.json'), join(floorExt, 'package.json'));
      await mkdir(join(floorExt, 'dist'));
      await writeFile(join(floorExt, 'dist', 'extension.js'), 'exports.activate = () => ({ activateMs: 0 });\nexports.deactivate = () => {};\n');
      const ours: number[] = [];
      const floor: number[] = [];
      const over: number[] = [];
      const ready: number[] = [];
      // One server start first, not counted: the first start after a while reads code-server
      // from disk, which would weigh on whichever extension came first.
      await activationRun(floorExt);
      // Alternate the two (empty, ours, empty, ours…) so each pair sees the same machine load.
      for (let i = 0; i < RUNS; i++) {
        const empty = await activationRun(floorExt);
        const run = await activationRun(ext);
        ours.push(run.ms);
        floor.push(empty.ms);
        over.push(run.ms - empty.ms);
        ready.push(run.ready);
        bench('vscode.activation_ms', 'ours', {
          run: i + 1, ms: run.ms, floor_ms: empty.ms, over_floor_ms: run.ms - empty.ms, activate_fn_ms: run.fn, ready_ms: run.ready, load1: loadavg()[0]!,
        });
      }
      // The median of each column; over_floor_ms is the median of the paired differences.
      bench('vscode.activation_ms', 'ours', {
        ms: median(ours), floor_ms: median(floor), over_floor_ms: median(over), max_over_floor_ms: Math.max(...over), ready_ms: median(ready),
        runs: ours.length, load1: loadavg()[0]!,
      });
    } finally {
      await rm(floorExt, { recursive: true, force: true });
    }
  } finally {
    await rm(ext, { recursive: true, force: true });
  }
}

/** One fresh code-server over a seeded team workspace, timing the activation of the extension in `ext`. */
async function activationRun(ext: string): Promise<{ ms: number; fn: number; ready: number }> {
  const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-bench-ws-'));
  try {
    (await seedTeam(workspace)).team.dispose();
    let ms: number | undefined;
    let fn = NaN;
    let ready = NaN;
    const code = await runExtensionHostTests({
      extensionDevelopmentPath: ext,
      extensionTestsPath: join(repoRoot(), 'out', 'test', 'e2e', 'ext-tests', 'activation.js'),
      serverOptions: { workspace },
      onConsole: (line) => { const m = /ACTIVATION_MS ([\d.]+) ACTIVATE_FN_MS ([\d.]+|NaN)/.exec(line); if (m) { ms = Number(m[1]); fn = Number(m[2]); }
        const r = /READY_MS ([\d.]+)/.exec(line);
        if (r) ready = Number(r[1]);
      },
    });
    if (code !== 0 || ms === undefined) throw new Error(`activation run in ${ext} failed (exit ${code})`);
    return { ms, fn, ready };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
