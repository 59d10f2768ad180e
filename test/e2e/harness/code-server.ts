// Starts one isolated code-server (VS Code 1.139 for the browser) for an e2e test: its own
// port, user data, extensions dir, XDG dirs and workspace, all removed again by stop().
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onExitCleanup } from './cleanup';
import { provisionedPaths } from './paths';

export interface CodeServerOptions {
  /** Unpacked extension folder; symlinked into the extensions dir as <publisher>.<name>-<version>. */
  extensionPath?: string;
  /** A .vsix to install into the extensions dir before start. */
  vsixPath?: string;
  /** Folder to open; created if missing and then left in place. Default: a fresh temp folder. */
  workspace?: string;
  /** Merged over DEFAULT_SETTINGS into the user settings.json. */
  settings?: Record<string, unknown>;
  /** 'disabled' (default) trusts everything; 'prompt' asks at startup (dialog). */
  trust?: 'disabled' | 'prompt';
  /** Extra environment for the server and so for the extension host. */
  env?: Record<string, string>;
  /** Enables `&payload=` extension tests and window.codeAutomationExit (see ext-host-tests.ts). */
  smokeTestDriver?: boolean;
}

export interface CodeServer {
  /** Workbench URL that opens `workspace`. */
  url: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  /** Kills the server's whole process group and removes its temp dirs; safe to call twice. */
  stop(): Promise<void>;
  /** Server stdout + stderr so far (the last 256 KiB). */
  logs(): string;
  /** The extension hosts' own logs (remoteexthost.log of every window so far), each under a header. */
  extensionHostLogs(): string;
}

/** Settings that keep the workbench quiet and deterministic; see /work/shared/E2E.md. */
export const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  // Commands still run in the sandbox, but ask as the rules say: suites about asking less set it.
  'agentTeams.sandbox.autoAllow': false,
};

// Generous: under load (2 cores shared with other suites) start-up can take many times longer.
const HEALTH_TIMEOUT_MS = 60_000;
const LOG_LIMIT = 256 * 1024;

export async function startCodeServer(opts: CodeServerOptions = {}): Promise<CodeServer> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-e2e-server-'));
  const removeRoot = () => rmSync(root, { recursive: true, force: true });
  const forgetRoot = onExitCleanup(removeRoot);
  try {
    const dirs = await prepareDirs(root, opts);
    const server = await launchWithRetry(dirs, opts);
    let stopped: Promise<void> | undefined;
    const stop = () => stopped ??= (async () => {
      await server.stop();
      await rm(root, { recursive: true, force: true });
      forgetRoot();
    })();
    return { ...server, stop };
  } catch (err) {
    removeRoot();
    forgetRoot();
    throw err;
  }
}

interface Dirs { root: string; userDataDir: string; extensionsDir: string; workspace: string; config: string; env: NodeJS.ProcessEnv }

async function prepareDirs(root: string, opts: CodeServerOptions): Promise<Dirs> {
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  const workspace = resolve(opts.workspace ?? join(root, 'workspace'));
  const tmp = join(root, 'tmp');
  await Promise.all([userDataDir, extensionsDir, workspace, tmp].map((d) => mkdir(d, { recursive: true })));
  await writeSettings(userDataDir, opts);
  const config = join(root, 'config.yaml');
  await writeFile(config, 'auth: none\ncert: false\n');
  const env = serverEnv(root, opts.env);
  const dirs = { root, userDataDir, extensionsDir, workspace, config, env };
  if (opts.extensionPath) await linkExtension(opts.extensionPath, extensionsDir);
  if (opts.vsixPath) await installVsix(opts.vsixPath, dirs);
  return dirs;
}

async function writeSettings(userDataDir: string, opts: CodeServerOptions): Promise<void> {
  const trust = opts.trust === 'prompt'
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always' }
    : {};
  const settings = { ...DEFAULT_SETTINGS, ...trust, ...opts.settings };
  await mkdir(join(userDataDir, 'User'), { recursive: true });
  await writeFile(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

function serverEnv(root: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Drop variables of a VS Code this test may itself be running in.
  for (const [k, v] of Object.entries(process.env)) if (!/^(VSCODE_|ELECTRON_RUN_AS_NODE)/.test(k)) env[k] = v;
  // Without these code-server writes into ~/.config/code-server and ~/.local/share.
  env.XDG_CONFIG_HOME = join(root, 'xdg-config');
  env.XDG_DATA_HOME = join(root, 'xdg-data');
  env.XDG_CACHE_HOME = join(root, 'xdg-cache');
  env.XDG_STATE_HOME = join(root, 'xdg-state');
  // The server and extension hosts leave IPC sockets and caches in the temp dir; keep them in ours.
  env.TMPDIR = join(root, 'tmp');
  return { ...env, ...extra };
}

async function linkExtension(extensionPath: string, extensionsDir: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(extensionPath, 'package.json'), 'utf8')) as
    { publisher?: string; name?: string; version?: string };
  if (!manifest.publisher || !manifest.name || !manifest.version) {
    throw new Error(`${extensionPath}/package.json needs publisher, name and version`);
  }
  const folder = `${manifest.publisher}.${manifest.name}-${manifest.version}`;
  await symlink(resolve(extensionPath), join(extensionsDir, folder), 'dir');
}

async function installVsix(vsixPath: string, dirs: Dirs): Promise<void> {
  const { node, codeServerEntry } = provisionedPaths();
  const args = [codeServerEntry, '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir,
    '--config', dirs.config, '--install-extension', resolve(vsixPath)];
  const { code, output } = await runToEnd(node, args, dirs.env);
  if (code !== 0) throw new Error(`installing ${vsixPath} failed (exit ${code}):\n${output}`);
}

function runToEnd(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

// The free port is found by binding and releasing it, so another process may grab it first.
async function launchWithRetry(dirs: Dirs, opts: CodeServerOptions): Promise<CodeServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(await freePort(), dirs, opts);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof PortInUseError)) throw err;
    }
  }
}

class PortInUseError extends Error {}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

async function launch(port: number, dirs: Dirs, opts: CodeServerOptions): Promise<CodeServer> {
  const { node, codeServerEntry } = provisionedPaths();
  const args = [codeServerEntry,
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--config', dirs.config,
    '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir,
    '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', '--ignore-last-opened',
    ...(opts.trust === 'prompt' ? [] : ['--disable-workspace-trust']),
    ...(opts.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : [])];
  // detached: its own process group, so stop() can take down the extension hosts with it.
  const child = spawn(node, args, { cwd: dirs.root, env: dirs.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = captureLogs(child);
  const forgetGroup = onExitCleanup(() => killGroup(child, 'SIGKILL'));
  const stop = async () => { await stopProcessGroup(child); forgetGroup(); };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(origin, child, log);
  } catch (err) {
    await stop();
    throw err;
  }
  const url = new URL(origin);
  url.searchParams.set('folder', dirs.workspace);
  return { url: url.toString(), origin, port, workspace: dirs.workspace, userDataDir: dirs.userDataDir,
    extensionsDir: dirs.extensionsDir, logs: log, extensionHostLogs: () => readExtensionHostLogs(dirs.userDataDir), stop };
}

function captureLogs(child: ChildProcess): () => string {
  let text = '';
  const add = (chunk: Buffer) => {
    text += chunk.toString();
    if (text.length > LOG_LIMIT) text = text.slice(-LOG_LIMIT);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => text;
}

async function waitHealthy(origin: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const text = logs();
      if (/EADDRINUSE/.test(text)) throw new PortInUseError(`port taken: ${origin}`);
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before becoming healthy:\n${tail(text)}`);
    }
    if (await isHealthy(origin)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`code-server at ${origin} not healthy after ${HEALTH_TIMEOUT_MS} ms:\n${tail(logs())}`);
}

async function isHealthy(origin: string): Promise<boolean> {
  try {
    const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try { process.kill(-child.pid, signal); } catch { /* ESRCH: the group is gone */ }
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => child.once('exit', () => r()));
  killGroup(child, 'SIGTERM');
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000).unref());
  await Promise.race([exited, timer]);
  // Children (extension host, pty host) may outlive the server; finish the whole group.
  killGroup(child, 'SIGKILL');
  await exited;
}

// Layout: <user-data>/logs/<session>/exthost<N>/remoteexthost.log, one exthost<N> per window.
function readExtensionHostLogs(userDataDir: string): string {
  const logsDir = join(userDataDir, 'logs');
  if (!existsSync(logsDir)) return '';
  const parts: string[] = [];
  for (const session of readdirSync(logsDir).sort()) {
    const sessionDir = join(logsDir, session);
    for (const host of readdirSync(sessionDir).filter((d) => d.startsWith('exthost')).sort()) {
      const file = join(sessionDir, host, 'remoteexthost.log');
      if (existsSync(file)) parts.push(`--- ${session}/${host} ---\n${readFileSync(file, 'utf8')}`);
      // Our own log channel ("Agent Teams"), wherever this VS Code version puts it.
      for (const f of readdirSync(join(sessionDir, host), { recursive: true, encoding: 'utf8' }).filter((n) => /Agent Teams\.log$/.test(n))) {
        parts.push(`--- ${session}/${host}/${f} ---\n${readFileSync(join(sessionDir, host, f), 'utf8')}`);
      }
    }
  }
  return parts.join('\n');
}

/** The last `lines` lines of `text`, for error messages. */
export function tail(text: string, lines = 40): string {
  return text.split('\n').slice(-lines).join('\n');
}
