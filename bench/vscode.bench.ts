// vscode.bundle_kb: size of the shipped (minified) bundles. vscode.activation_ms: loading the
// shipped extension bundle and running activate() in code-server's real extension host, on a
// workspace with a team (so activation reads roster, requests and tasks), over a few fresh
// servers (activation happens once per host). Targets: activation < 100 ms.
import * as esbuild from 'esbuild';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExtensionHostTests } from '../test/e2e/harness/ext-host-tests';
import { repoRoot } from '../test/e2e/harness/paths';
import { seedTeam } from '../test/vscode/seed-team';
import { bench, latency, note } from './lib/report';

const RUNS = Number(process.env.VSCODE_BENCH_RUNS ?? 3);

/** The shipped bundles, built as `npm run package` builds them, into `dir`. */
async function buildShipped(dir: string): Promise<{ extension: number; webview: number }> {
  const root = repoRoot();
  await esbuild.build({ entryPoints: [join(root, 'src/vscode/extension.ts')], outfile: join(dir, 'dist/extension.js'), bundle: true,
    platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], minify: true, logLevel: 'warning' });
  await esbuild.build({ entryPoints: [join(root, 'src/webview/inbox.ts')], outfile: join(dir, 'dist/webview/inbox.js'), bundle: true,
    platform: 'browser', format: 'iife', target: 'es2022', minify: true, logLevel: 'warning' });
  await cp(join(root, 'package.json'), join(dir, 'package.json'));
  await cp(join(root, 'media'), join(dir, 'media'), { recursive: true });
  return { extension: (await stat(join(dir, 'dist/extension.js'))).size, webview: (await stat(join(dir, 'dist/webview/inbox.js'))).size };
}

async function main(): Promise<void> {
  const ext = await mkdtemp(join(tmpdir(), 'agent-teams-bench-ext-'));
  try {
    const size = await buildShipped(ext);
    const kb = (n: number) => n / 1024;
    bench('vscode.bundle_kb', 'ours', { kb: kb(size.extension + size.webview), extension_kb: kb(size.extension), webview_kb: kb(size.webview) });
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-bench-ws-'));
      (await seedTeam(workspace)).team.dispose();
      let ms: number | undefined;
      let fn = NaN;
      const code = await runExtensionHostTests({
        extensionDevelopmentPath: ext,
        extensionTestsPath: join(repoRoot(), 'out', 'test', 'e2e', 'ext-tests', 'activation.js'),
        serverOptions: { workspace },
        onConsole: (line) => { const m = /ACTIVATION_MS ([\d.]+) ACTIVATE_FN_MS ([\d.]+|NaN)/.exec(line); if (m) { ms = Number(m[1]); fn = Number(m[2]); } },
      });
      await rm(workspace, { recursive: true, force: true });
      if (code !== 0 || ms === undefined) throw new Error(`activation run ${i + 1} failed (exit ${code})`);
      note(`run ${i + 1}: activated in ${ms.toFixed(1)} ms (activate() itself ${fn.toFixed(1)} ms, the rest is loading the bundle)`);
      samples.push(ms);
    }
    const l = latency(samples);
    bench('vscode.activation_ms', 'ours', { ms: l.p50_ms, max_ms: l.max_ms, runs: samples.length });
  } finally {
    await rm(ext, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
