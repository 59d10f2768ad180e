// The container engine, reached through its HTTP API (Docker, Docker Desktop and Podman's
// Docker-compatible service alike; docs/containers.md): which address to use and a client for
// it. `unix://…` and `npipe://…` are local sockets, `tcp://…` a plain or TLS port, `ssh://user@host`
// a remote engine reached through ssh (the remote runs `docker system dial-stdio`). Nothing here
// scrapes a CLI.
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { hostVerifier, knownHostKeys } from './known-hosts';

export type Engine = Docker;

/** An engine address the product understands, or why not. */
export function parseEngineUrl(url: string): { kind: 'socket'; path: string } | { kind: 'tcp'; host: string; port: number; tls: boolean } | { kind: 'ssh'; host: string; port: number; user?: string } {
  const u = url.trim();
  if (u.startsWith('unix://')) return { kind: 'socket', path: u.slice('unix://'.length) };
  if (u.startsWith('npipe://')) return { kind: 'socket', path: u.slice('npipe://'.length) || '//./pipe/docker_engine' };
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    throw new Error(`container host "${url}" is not an address: expected unix:///path, tcp://host:port or ssh://user@host`);
  }
  const port = parsed.port ? Number(parsed.port) : undefined;
  if (parsed.protocol === 'tcp:' || parsed.protocol === 'http:' || parsed.protocol === 'https:') {
    const tls = parsed.protocol === 'https:' || port === 2376;
    return { kind: 'tcp', host: parsed.hostname, port: port ?? (tls ? 2376 : 2375), tls };
  }
  if (parsed.protocol === 'ssh:') return { kind: 'ssh', host: parsed.hostname, port: port ?? 22, ...(parsed.username ? { user: decodeURIComponent(parsed.username) } : {}) };
  throw new Error(`container host "${url}" has an unknown scheme "${parsed.protocol}": expected unix://, npipe://, tcp:// or ssh://`);
}

const exists = (p: string) => access(p, constants.F_OK).then(() => true, () => false);

/**
 * The engine used when no setting names one: `DOCKER_HOST`, else the first local socket that
 * exists — Docker's, Docker Desktop's (in the home folder on macOS), Podman's rootless then
 * rootful one. Undefined when there is none.
 */
export async function defaultEngineUrl(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env.DOCKER_HOST) return env.DOCKER_HOST;
  if (process.platform === 'win32') return 'npipe:////./pipe/docker_engine';
  const runtime = env.XDG_RUNTIME_DIR ?? `/run/user/${process.getuid?.() ?? 0}`;
  const candidates = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock'), join(runtime, 'podman', 'podman.sock'), '/run/podman/podman.sock'];
  for (const p of candidates) if (await exists(p)) return `unix://${p}`;
  return undefined;
}

/** The first private key of the usual names, for an ssh engine when no agent is running. */
async function defaultKey(): Promise<Buffer | undefined> {
  for (const name of ['id_ed25519', 'id_ecdsa', 'id_rsa']) {
    const key = await readFile(join(homedir(), '.ssh', name)).catch(() => undefined);
    if (key) return key;
  }
  return undefined;
}

export interface EngineOptions {
  /** ssh: the key to log in with (default: the ssh agent, else ~/.ssh/id_*). */
  privateKey?: Buffer;
  /** ssh: the known_hosts file the engine's host key must be in (default ~/.ssh/known_hosts). */
  knownHostsFile?: string;
  /** Per-request timeout of the API (ms); exec streams are not limited by it. */
  timeoutMs?: number;
}

/**
 * A client for the engine at `url` (no request is made yet). An ssh engine whose host has no
 * key in known_hosts is refused here; one presenting another key fails on connecting.
 */
export async function connectEngine(url: string, opts: EngineOptions = {}): Promise<Engine> {
  const target = parseEngineUrl(url);
  if (target.kind === 'socket') return new Docker({ socketPath: target.path });
  if (target.kind === 'tcp') return new Docker({ host: target.host, port: target.port, protocol: target.tls ? 'https' : 'http' });
  const agent = process.env.SSH_AUTH_SOCK;
  const privateKey = opts.privateKey ?? (agent ? undefined : await defaultKey());
  const knownHosts = opts.knownHostsFile ?? join(homedir(), '.ssh', 'known_hosts');
  const keys = knownHostKeys(await readFile(knownHosts, 'utf8').catch(() => ''), target.host, target.port);
  if (!keys.accepted.length) {
    throw new Error(`the host key of ${target.host}${target.port === 22 ? '' : `:${target.port}`} is not in ${knownHosts}: connect once with \`ssh\` to check and accept it`);
  }
  return new Docker({
    protocol: 'ssh', host: target.host, port: target.port, ...(target.user ? { username: target.user } : {}),
    // No agent forwarding: the remote engine never gets to use the user's keys.
    sshOptions: { ...(privateKey ? { privateKey } : { agent }), agentForward: false, readyTimeout: 10_000, hostVerifier: hostVerifier(keys) },
  });
}

/** Resolves when the engine answers, else rejects with a sentence naming the address. */
export async function pingEngine(engine: Engine, url: string, timeoutMs = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); });
  try {
    await Promise.race([engine.ping(), late]);
  } catch (e) {
    throw new Error(`the container engine at ${url} is not reachable: ${(e as Error).message ?? e}`);
  } finally {
    clearTimeout(timer);
  }
}
