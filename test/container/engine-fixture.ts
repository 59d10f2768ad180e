// A real container engine for the container tests: Podman's Docker-compatible service on a
// private socket, started for one test file and stopped after it (nothing outlives the run).
// scripts/provision-containers.mjs installs podman and imports the small local image first;
// where that is impossible the tests skip with its reason, printed. AGENT_TEAMS_TEST_CONTAINER_HOST
// (with AGENT_TEAMS_TEST_CONTAINER_IMAGE) points the tests at another engine instead, e.g.
// Docker: `unix:///var/run/docker.sock`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
