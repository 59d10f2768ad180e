// vscode.bundle_kb: size of the shipped (minified) bundles. vscode.activation_ms: loading the
// shipped extension bundle and running activate() in code-server's real extension host, on a
// workspace with a team (so activation reads roster, requests and tasks), over a few fresh
// servers (activation happens once per host). Targets: activation < 100 ms.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runExtensionHostTests } from '../test/e2e/harness/ext-host-tests';
import { repoRoot } from '../test/e2e/harness/paths';
import { seedTeam } from '../test/vscode/seed-team';
import { bench, latency, note } from './lib/report';

const exec = promisify(execFile);
const RUNS = Number(process.env.VSCODE_BENCH_RUNS ?? 3);

/** The shipped bundles, built as `npm run package` builds them, into `dir`. */
async function buildShipped(dir: string): Promise<{ extension: number; sdk: number; webview: number }> {
  const root = repoRoot();
  await exec(process.execPath, [join(root, 'esbuild.mjs'), '--production', '--dist', join(dir, 'dist')], { cwd: root });
  await cp(join(root, 'package.json'), join(dir, 'package.json'));
  await cp(join(root, 'media'), join(dir, 'media'), { recursive: true });
  const size = async (f: string) => (await stat(join(dir, 'dist', f))).size;
  return { extension: await size('extension.js'), sdk: await size('anthropic-sdk.js'), webview: await size('webview/inbox.js') };
}

async function main(): Promise<void> {
  const ext = await mkdtemp(join(tmpdir(), 'agent-teams-bench-ext-'));
  try {
    const size = await buildShipped(ext);
    const kb = (n: number) => n / 1024;
    // extension_kb is what activation loads; sdk_kb (the Anthropic SDK) loads with the first agent.
    bench('vscode.bundle_kb', 'ours', {
      kb: kb(size.extension + size.sdk + size.webview), extension_kb: kb(size.extension), sdk_kb: kb(size.sdk), webview_kb: kb(size.webview),
    });
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
