// container.exec_ms, container.spawn_ms and container.teammates (docs/containers.md), against a
// real engine: Podman's Docker-compatible service started for the run (test/container/
// engine-fixture.ts; skipped, saying why, where it cannot be provisioned).
// exec_ms: `true` in a running teammate container (the command loop) vs plainly (bash -c), in
// the same run, interleaved. spawn_ms: from start() to the first command's result, with the
// devcontainer's image built (cold) and cached (warm). teammates: N teammates on the engines
// each running git commands at once. proxy_ms: a request through the container's network bridge
// (proxyMs below). Tunables (env): BENCH_CONTAINER_RUNS (100).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ContainerBackend } from '../src/core/container/backend';
import { connectEngine } from '../src/core/container/engine';
import { resolveContainerSettings, type ContainerFile } from '../src/core/container/settings';
import { runShell } from '../src/core/exec/shell';
import { startTestEngine, type TestEngine } from '../test/container/engine-fixture';
import { bench, note, percentile } from './lib/report';

const RUNS = Number(process.env.BENCH_CONTAINER_RUNS ?? 100);
const run = promisify(execFile);
const OPTS = { timeoutMs: 30_000, maxOutputBytes: 10_000 };

async function repo(agents: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-bench-container-'));
  const git = (...a: string[]) => run('git', a, { cwd: root });
  await git('init', '-q', '-b', 'main');
  await writeFile(join(root, 'README.md'), 'bench\n');
  await git('add', '.');
  await git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'first');
  for (const a of agents) await git('branch', `team/${a}`);
  return root;
}

function backend(root: string, file: ContainerFile): ContainerBackend {
  return new ContainerBackend({ root, teamName: `bench${randomBytes(3).toString('hex')}`, settings: () => resolveContainerSettings(file) });
}

async function execMs(engine: TestEngine): Promise<void> {
  const root = await repo(['a']);
  const b = backend(root, { host: engine.host, image: engine.image });
  try {
    await b.start('a');
    const once = async (inContainer: boolean) => {
      const t = performance.now();
      const r = inContainer ? await b.exec('a', 'true', OPTS) : await runShell('true', { cwd: root, ...OPTS });
      if (r.exitCode !== 0) throw new Error(`true failed: ${r.error ?? r.output}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 5; i++) { await once(true); await once(false); }
    const inside: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < RUNS; i++) { inside.push(await once(true)); plain.push(await once(false)); }
    bench('container.exec_ms', 'ours', { runs: RUNS, p50_ms: percentile(inside, 50), p99_ms: percentile(inside, 99), baseline_p50_ms: percentile(plain, 50), loadavg_1m: loadavg()[0]! });
    note('exec_ms: one line to the container\'s command loop and its answer (setsid bash -c inside); target: p50 within 30 ms of baseline_p50_ms');
  } finally {
    await b.prune(() => false);
    await b.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/** A request through the proxy from bash alone (the test image has no curl). */
const viaProxy = (url: string) => `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET ${url} HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

/**
 * container.proxy_ms: an HTTP request from a command in the container through its bridge and the
 * product's proxy to a server here, over the same command's cost without it; against the naive
 * design's floor, one engine exec per connection (create, start, wait: what carrying each
 * connection by an exec of its own, e.g. socat, would add before any byte moves).
 */
async function proxyMs(engine: TestEngine): Promise<void> {
  const root = await repo(['n']);
  const server = createServer((_req, res) => res.end('ok\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
  const b = new ContainerBackend({
    root, teamName: `bench${randomBytes(3).toString('hex')}`, settings: () => resolveContainerSettings({ host: engine.host, image: engine.image }),
    network: () => async () => true,
  });
  try {
    const t0 = performance.now();
    const started = await b.start('n');
    const startMs = performance.now() - t0;
    const runs = Math.max(10, Math.round(RUNS / 4));
    const time = async (command: string, expect: RegExp) => {
      const t = performance.now();
      const r = await b.exec('n', command, OPTS);
      if (!expect.test(r.output)) throw new Error(`${command}: ${r.error ?? r.output}`);
      return performance.now() - t;
    };
    const docker = await connectEngine(engine.host);
    const rawExec = async () => {
      const t = performance.now();
      const e = await docker.getContainer(started.id).exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
      const stream = await e.start({});
      await new Promise((r) => { stream.on('end', r); stream.on('close', r); stream.resume(); });
      return performance.now() - t;
    };
    for (let i = 0; i < 3; i++) { await time(viaProxy(url), /200 OK/); await rawExec(); }
    const via: number[] = [];
    const bare: number[] = [];
    const naive: number[] = [];
    for (let i = 0; i < runs; i++) {
      via.push(await time(viaProxy(url), /200 OK/));
      bare.push(await time('printf x', /x/));
      naive.push(await rawExec());
    }
    const added = percentile(via, 50) - percentile(bare, 50);
    bench('container.proxy_ms', 'ours', { runs, start_with_bridge_ms: startMs, request_p50_ms: percentile(via, 50), command_p50_ms: percentile(bare, 50), added_p50_ms: added, loadavg_1m: loadavg()[0]! });
    bench('container.proxy_ms', 'naive', { runs, exec_per_connection_p50_ms: percentile(naive, 50), ratio: percentile(naive, 50) / Math.max(added, 0.01) });
    note('proxy_ms: start_with_bridge_ms is start() of a teammate whose container gets the bridge (image cached: compare spawn_ms warm_ms, which has none); added_p50_ms is what a connection through the bridge and the proxy adds to a command; naive is the floor of one engine exec per connection, paid before any byte moves');
  } finally {
    server.close();
    await b.prune(() => false);
    await b.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

async function spawnMs(engine: TestEngine): Promise<void> {
  const root = await repo(['cold', 'warm']);
  await mkdir(join(root, '.devcontainer'), { recursive: true });
  await writeFile(join(root, '.devcontainer', 'devcontainer.json'), '{ "build": { "dockerfile": "Dockerfile" } }');
  // A nonce in the context: a new image every run, so "cold" is a real build.
  await writeFile(join(root, '.devcontainer', 'nonce.txt'), randomBytes(8).toString('hex'));
  await writeFile(join(root, '.devcontainer', 'Dockerfile'), `FROM ${engine.image}\nCOPY nonce.txt /etc/nonce.txt\n`);
  const b = backend(root, { host: engine.host });
  let tag = '';
  try {
    const first = async (agent: string) => {
      const t = performance.now();
      tag = (await b.start(agent)).image;
      const r = await b.exec(agent, 'true', OPTS);
      if (r.exitCode !== 0) throw new Error(`true failed: ${r.error ?? r.output}`);
      return performance.now() - t;
    };
    const cold = await first('cold');
    const warm = await first('warm');
    bench('container.spawn_ms', 'ours', { cold_ms: cold, warm_ms: warm, loadavg_1m: loadavg()[0]! });
    note('spawn_ms: start() to the first command\'s result — place, image (built: cold; cached by content: warm), create, start, command loop, clone of the branch');
  } finally {
    await b.prune(() => false);
    await b.dispose();
    if (tag) await (await connectEngine(engine.host)).getImage(tag).remove({ force: true }).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

async function teammates(engines: TestEngine[]): Promise<void> {
  const names = ['t1', 't2', 't3', 't4'];
  const perTeammate = Math.max(10, Math.round(RUNS / 4));
  const root = await repo(names);
  const b = backend(root, { hosts: engines.map((e) => e.host), image: engines[0]!.image });
  try {
    // One at a time, so placement sees each new container on its engine.
    for (const n of names) await b.start(n);
    const t = performance.now();
    await Promise.all(names.map(async (n) => {
      for (let i = 0; i < perTeammate; i++) {
        const r = await b.exec(n, 'git status --short && git log --oneline -1', OPTS);
        if (r.exitCode !== 0) throw new Error(`git failed: ${r.error ?? r.output}`);
      }
    }));
    const s = (performance.now() - t) / 1000;
    const placed = new Set((await b.list()).containers.map((c) => c.host)).size;
    bench('container.teammates', 'ours', { hosts: engines.length, hosts_used: placed, teammates: names.length, commands: names.length * perTeammate, commands_per_s: (names.length * perTeammate) / s, loadavg_1m: loadavg()[0]! });
    note('teammates: the engines are two Podman services on this one machine (sharing its 2 cores): placement across them is real, the extra capacity is not');
  } finally {
    await b.prune(() => false);
    await b.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const engine = await startTestEngine();
  if ('skip' in engine) return note(`container benchmarks skipped: ${engine.skip}`);
  const second = process.env.AGENT_TEAMS_TEST_CONTAINER_HOST ? null : await startTestEngine();
  try {
    await execMs(engine);
    await proxyMs(engine);
    await spawnMs(engine);
    await teammates(second && !('skip' in second) ? [engine, second] : [engine]);
  } finally {
    await engine.stop();
    if (second && !('skip' in second)) await second.stop();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
