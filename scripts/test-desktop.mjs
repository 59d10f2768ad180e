// `npm run test:desktop`: the extension-host suite (test/e2e/ext-tests) in a real desktop VS
// Code, downloaded and started by @vscode/test-electron, over the same seeded workspace as
// test/e2e/vscode-ext-host.test.ts (which runs that suite in code-server, offline). Needs a
// machine that can download VS Code; without one it says so at once and exits 3.
// Not part of `npm test`.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';

const exec = promisify(execFile);
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const UPDATE_HOST = 'update.code.visualstudio.com';

/** Whether VS Code's download server answers within `ms` (DNS, connect and TLS included). */
function reachable(ms) {
  return new Promise((resolve) => {
    const req = request({ host: UPDATE_HOST, path: '/api/releases/stable', method: 'HEAD', timeout: ms }, (res) => {
      res.resume();
      resolve({ ok: true });
    });
    req.on('timeout', () => { req.destroy(); resolve({ ok: false, why: `no answer within ${ms / 1000} s` }); });
    req.on('error', (err) => resolve({ ok: false, why: err.code ? `${err.code} ${err.hostname ?? ''}`.trim() : err.message }));
    req.end();
  });
}

function run(cmd, args) {
  return new Promise((resolve) => spawn(cmd, args, { cwd: repo, stdio: 'inherit' }).on('exit', (code) => resolve(code ?? 1)));
}

async function main() {
  let testElectron;
  try {
    testElectron = require('@vscode/test-electron');
  } catch {
    console.error('test:desktop: @vscode/test-electron is not installed; run `npm ci` first.');
    return 3;
  }
  const net = await reachable(5000);
  if (!net.ok) {
    console.error(`test:desktop cannot run here: VS Code cannot be downloaded from ${UPDATE_HOST} (${net.why}).`);
    console.error('On a machine with internet access it downloads VS Code (cached in .vscode-test/) and runs test/e2e/ext-tests in it.');
    console.error('Offline, the same suite runs in code-server: `flock /tmp/agent-teams-e2e.lock node --test out/test/e2e/vscode-ext-host.test.js` (after `node esbuild.mjs --tests`).');
    return 3;
  }
  if (await run(process.execPath, ['esbuild.mjs', '--tests'])) return 1;
  const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-desktop-'));
  try {
    // A git repository with one commit (for the worktree cases) and the seeded team.
    await writeFile(join(workspace, 'notes.txt'), 'first line\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', 'notes.txt'], ['commit', '-q', '-m', 'first']]) await exec('git', args, { cwd: workspace });
    const { seedTeam } = require(join(repo, 'out', 'test', 'vscode', 'seed-team.js'));
    (await seedTeam(workspace)).team.dispose();
    await testElectron.runTests({
      extensionDevelopmentPath: repo,
      extensionTestsPath: join(repo, 'out', 'test', 'e2e', 'ext-tests', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
    console.log('test:desktop: the extension-host suite passed in desktop VS Code.');
    return 0;
  } catch (err) {
    console.error(`test:desktop: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

process.exitCode = await main();
