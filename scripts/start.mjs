#!/usr/bin/env node
// `npm start [-- <folder>] [--port N]`: builds and packages the extension, provisions
// code-server (scripts/provision-e2e.mjs, cached), installs the .vsix into a profile kept
// under ~/.cache/agent-teams-start (so a key set with "Set API Key" survives restarts),
// starts code-server on 127.0.0.1 with <folder> open — else the folder npm was run from,
// else a demo workspace — prints the URL and runs until Ctrl-C.
// ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL in the environment reach the extension.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageExtension } from './package.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1] === '--port'));
const home = join(homedir(), '.cache', 'agent-teams-start');

function run(cmd, argv, opts = {}) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
    child.on('error', fail);
    child.on('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`${cmd} ${argv.join(' ')} failed (${signal ?? code})`))));
  });
}

function portFree(port) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

async function choosePort() {
  const wanted = Number(opt('--port') ?? process.env.PORT ?? 8080);
  if (await portFree(wanted)) return wanted;
  return new Promise((done) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => done(port)); });
  });
}

async function workspaceFolder() {
  if (positional[0]) return resolve(positional[0]);
  const from = process.env.INIT_CWD && resolve(process.env.INIT_CWD);
  if (from && from !== repo) return from;
  const demo = join(home, 'demo-workspace');
  await mkdir(demo, { recursive: true });
  await writeFile(join(demo, 'README.md'), '# Demo workspace\n\nAsk the lead to build something here.\n', { flag: 'a' });
  return demo;
}

async function main() {
  const vsix = await packageExtension();
  await run(process.execPath, [join(repo, 'scripts', 'provision-e2e.mjs')]);
  const cache = process.env.AGENT_TEAMS_E2E_CACHE || join(homedir(), '.cache', 'agent-teams-e2e');
  const paths = JSON.parse(await readFile(join(cache, 'paths.json'), 'utf8'));
  const dirs = { userData: join(home, 'user-data'), extensions: join(home, 'extensions'), xdg: join(home, 'xdg') };
  await Promise.all(Object.values(dirs).map((d) => mkdir(d, { recursive: true })));
  await mkdir(join(dirs.userData, 'User'), { recursive: true });
  const settingsFile = join(dirs.userData, 'User', 'settings.json');
  const settings = await readFile(settingsFile, 'utf8').then(JSON.parse, () => ({}));
  await writeFile(settingsFile, JSON.stringify({
    'workbench.startupEditor': 'none', 'chat.disableAIFeatures': true, 'extensions.autoUpdate': false,
    'update.mode': 'none', 'telemetry.telemetryLevel': 'off', ...settings,
  }, null, 2));
  const config = join(home, 'config.yaml');
  await writeFile(config, 'auth: none\ncert: false\n');
  const env = { ...process.env, XDG_CONFIG_HOME: join(dirs.xdg, 'config'), XDG_DATA_HOME: join(dirs.xdg, 'data'), XDG_CACHE_HOME: join(dirs.xdg, 'cache') };
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--config', config];
  await run(paths.node, [paths.codeServerEntry, ...common, '--install-extension', vsix, '--force'], { env });
  const folder = await workspaceFolder();
  const port = await choosePort();
  const server = spawn(paths.node, [paths.codeServerEntry, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', '--disable-workspace-trust', folder],
  { env, detached: true, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = () => { try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ } };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.on('exit', (code, signal) => { console.log(`code-server stopped (${signal ?? code})`); process.exit(code ?? 0); });
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = new URL(`http://127.0.0.1:${port}/`);
  url.searchParams.set('folder', folder);
  console.log(`\nAgent Teams is running in VS Code (code-server) on ${folder}\n\n  ${url}\n\nPress Ctrl-C to stop.`);
}

main().catch((err) => { console.error(`start: ${err.message}`); process.exit(1); });
