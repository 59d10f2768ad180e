// A real container engine for the container tests: Podman's Docker-compatible service on a
// private socket, started for one test file and stopped after it (nothing outlives the run).
// scripts/provision-containers.mjs installs podman and imports the small local image first;
// where that is impossible the tests skip with its reason, printed. AGENT_TEAMS_TEST_CONTAINER_HOST
// (with AGENT_TEAMS_TEST_CONTAINER_IMAGE) points the tests at another engine instead, e.g.
// Docker: `unix:///var/run/docker.sock`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before } from 'node:test';
import { connectEngine } from '../../src/core/container/engine';

const repo = join(__dirname, '..', '..', '..');

export interface TestEngine {
  host: string;
  image: string;
  stop(): Promise<void>;
  /** Stops and starts the engine's service again (the containers go on); the test engine only. */
  down?(): Promise<void>;
  up?(): Promise<void>;
}

let provisioned: Promise<{ ok: boolean; reason?: string; conf?: string; image?: string }> | undefined;

function provision() {
  provisioned ??= promisify(execFile)(process.execPath, [join(repo, 'scripts', 'provision-containers.mjs')], { timeout: 600_000 })
    .then(({ stdout }) => JSON.parse(stdout.trim().split('\n').pop()!))
    .catch((e: Error) => ({ ok: false, reason: `provisioning failed: ${e.message}` }));
  return provisioned;
}

async function answers(host: string, timeoutMs: number): Promise<boolean> {
  const engine = await connectEngine(host);
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await engine.ping().then(() => true, () => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** A running engine, or the reason there is none (the caller skips with it). */
export async function startTestEngine(): Promise<TestEngine | { skip: string }> {
  const own = process.env.AGENT_TEAMS_TEST_CONTAINER_HOST;
  if (own) {
    return (await answers(own, 5000))
      ? { host: own, image: process.env.AGENT_TEAMS_TEST_CONTAINER_IMAGE ?? 'debian:bookworm', stop: async () => {} }
      : { skip: `AGENT_TEAMS_TEST_CONTAINER_HOST=${own} does not answer` };
  }
  const p = await provision();
  if (!p.ok) return { skip: `no container engine on this machine: ${p.reason}` };
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-podman-'));
  const host = `unix://${join(dir, 'podman.sock')}`;
  let service = serve(host, p.conf!);
  const stop = async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  };
  if (!(await answers(host, 15_000))) {
    await stop();
    return { skip: 'podman system service did not answer within 15 s' };
  }
  return {
    host, image: p.image!, stop,
    down: () => service.stop(),
    up: async () => {
      if (service.running()) return;
      service = serve(host, p.conf!); if (!(await answers(host, 15_000))) throw new Error('podman did not come back'); },
  };
}

/** `podman system service` on `host`, in a process group of its own. */
function serve(host: string, conf: string): { stop(): Promise<void>; running(): boolean } {
  const child: ChildProcess = spawn('podman', ['system', 'service', '--time=0', host], {
    detached: true, stdio: 'ignore', env: { ...process.env, CONTAINERS_CONF: conf },
  });
  child.on('error', () => undefined);
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    running,
    stop: async () => {
      if (!running()) return;
      const exited = new Promise((r) => child.once('exit', r));
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      const late = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 3000);
      await exited;
      clearTimeout(late);
    },
  };
}

/**
 * One engine for the test file that calls this (at load): started before its tests, stopped
 * after them; the getter gives it, or the reason to skip (printed once).
 */
export function engineForFile(): () => TestEngine | { skip: string } {
  let engine: TestEngine | { skip: string } = { skip: 'the engine was not started' };
  before(async () => {
    engine = await startTestEngine();
    if ('skip' in engine) console.log(`# SKIP container tests: ${engine.skip}`);
  });
  after(async () => { if (!('skip' in engine)) await engine.stop(); });
  return () => engine;
}

/**
 * The test engine as a second machine would be reached: an sshd of its own on 127.0.0.1 (a
 * fresh host key and user key) whose sessions have DOCKER_HOST set to the engine's socket, so
 * the client's `docker system dial-stdio` there reaches it. Nothing else is shared: the tests
 * through it use only what crosses ssh.
 */
export async function startSshEngine(engine: TestEngine): Promise<{ host: string; privateKey: Buffer; knownHostsFile: string; dir: string; stop(): Promise<void> } | { skip: string }> {
  if (!engine.host.startsWith('unix://')) return { skip: 'ssh needs the local test engine' };
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-sshd-'));
  const keygen = (name: string) => promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  try {
    await keygen('host_key');
    await keygen('user_key');
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    return { skip: `ssh-keygen failed: ${(e as Error).message}` };
  }
  await copyFile(join(dir, 'user_key.pub'), join(dir, 'authorized_keys'));
  await mkdir('/run/sshd', { recursive: true }).catch(() => undefined);
  const port = await freePort();
  await writeFile(join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`, 'UsePAM no', 'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
    `SetEnv DOCKER_HOST=${engine.host}`, '',
  ].join('\n'));
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // Its sessions (each in a session of its own) first: the connections drop, as when a
      // machine goes away, not only the listener.
      for (const pid of await descendants(child.pid!)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      const exited = new Promise((r) => child.once('exit', r));
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const host = `ssh://${userInfo().username}@127.0.0.1:${port}`;
  const privateKey = await readFile(join(dir, 'user_key'));
  const knownHostsFile = join(dir, 'known_hosts');
  const hostKey = (await readFile(join(dir, 'host_key.pub'), 'utf8')).split(' ').slice(0, 2).join(' ');
  await writeFile(knownHostsFile, `# the test's sshd\n[127.0.0.1]:${port} ${hostKey}\n`);
  const e = await connectEngine(host, { privateKey, knownHostsFile });
  const end = Date.now() + 15_000;
  while (Date.now() < end && !(await e.ping().then(() => true, () => false))) await new Promise((r) => setTimeout(r, 200));
  if (!(await e.ping().then(() => true, () => false))) {
    await stop();
    return { skip: 'the engine did not answer through sshd on 127.0.0.1 (is openssh-server installed?)' };
  }
  return { host, privateKey, knownHostsFile, dir, stop };
}

/** The processes below `pid` (by their parent ids in /proc). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const out: number[] = [];
  const walk = (p: number) => { for (const [c, pp] of parents) if (pp === p) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
