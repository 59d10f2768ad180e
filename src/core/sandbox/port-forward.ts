// A dev server in a sandboxed background job listens in that job's own network namespace
// (docs/security.md). This forwards each loopback port it listens on to the same port on the
// host's 127.0.0.1, so the user's browser and other agents' commands (through the proxy, once
// loopback is allowed) reach it: the host polls the job's listening sockets through /proc, and
// for each connection runs socat *in the job's network namespace* (nsenter), which connects to
// 127.0.0.1:<port> there. No path is involved that the job could swap: the namespace is held
// open by file descriptor from the moment it was checked to be the job's, and passed to nsenter
// as that descriptor. (A forwarding socket in a folder the job writes, checked and then
// connected to by path, let a job that swapped it for a symlink send the host's connections to
// a host socket of its choice: test/runtime/sandbox-forward-swap.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { open, readFile, readlink, type FileHandle } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { PROXY_PORT } from './bwrap';

const POLL_MS = 1000;

export interface ForwardTools {
  nsenter: string;
  socat: string;
}

/** The job's namespaces, held open: `net`, and `user` when it is not ours (entered first, as nsenter needs). */
interface HeldNamespaces {
  net: FileHandle;
  user: FileHandle | null;
}

export class PortForwarder {
  private readonly servers = new Map<number, Server>();
  private readonly refused = new Set<number>();
  private readonly links = new Set<Socket | ChildProcess>();
  private ns: Promise<HeldNamespaces | null> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly tools: ForwardTools, private readonly onForward: (port: number, ok: boolean) => void) {}

  /** Starts watching the namespace of `bwrapPid` (the job's outer bwrap process). */
  watch(bwrapPid: number): void {
    const tick = async () => {
      if (this.stopped) return;
      const inner = Number((await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/)[0]);
      if (inner) {
        const ports = await listening(inner);
        // Held from the first poll that finds a port: the job's process is checked to be in a namespace that is not ours.
        if (ports.length && !this.stopped && !(await this.ns)) this.ns = holdNamespaces(inner, bwrapPid);
        if (ports.length && !this.stopped && (await this.ns)) for (const port of ports) this.forward(port);
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), POLL_MS);
    };
    this.timer = setTimeout(() => void tick(), 200);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const l of this.links) 'kill' in l ? l.kill('SIGKILL') : l.destroy();
    await Promise.all([...this.servers.values()].map((s) => new Promise<void>((r) => s.close(() => r()))));
    const ns = await this.ns?.catch(() => null);
    await Promise.all([ns?.net.close(), ns?.user?.close()].map((p) => p?.catch(() => undefined)));
  }

  private forward(port: number): void {
    if (port === PROXY_PORT || this.servers.has(port) || this.refused.has(port)) return;
    const server = createServer((client) => void this.connect(client, port));
    this.servers.set(port, server);
    server.once('error', () => {
      // The port is taken on the host (another server, another job): said once, not retried.
      this.servers.delete(port);
      this.refused.add(port);
      this.onForward(port, false);
    });
    server.listen(port, '127.0.0.1', () => this.onForward(port, true));
  }

  /** One host connection, carried by a socat that nsenter put in the held namespace. */
  private async connect(client: Socket, port: number): Promise<void> {
    this.links.add(client);
    client.on('error', () => client.destroy());
    const ns = await this.ns;
    if (!ns || this.stopped || client.destroyed) { client.destroy(); this.links.delete(client); return; }
    // fd 3: the job's network namespace; fd 4: its user namespace (an unprivileged user may
    // only enter a network namespace owned by the user namespace bwrap made).
    const user = ns.user ? ['--user=/proc/self/fd/4', '--preserve-credentials'] : [];
    const child = spawn(this.tools.nsenter, [...user, '--net=/proc/self/fd/3', '--', this.tools.socat, 'STDIO', `TCP:127.0.0.1:${port}`], {
      stdio: ['pipe', 'pipe', 'ignore', ns.net.fd, ...(ns.user ? [ns.user.fd] : [])],
    });
    this.links.add(child);
    const done = () => { this.links.delete(client); this.links.delete(child); };
    // Each side's end is passed on (pipe ends the other); a client gone kills socat, a socat gone ends the client.
    client.pipe(child.stdin!);
    child.stdout!.pipe(client);
    child.stdin!.on('error', () => undefined);
    child.once('error', () => { client.destroy(); done(); });
    child.once('close', done);
    client.once('close', () => { if (child.exitCode === null) child.kill('SIGKILL'); done(); });
  }
}

/**
 * Opens the network (and, when it is not ours, user) namespace of `pid`, the job's first
 * process inside bwrap; null unless it is a namespace of its own and `pid` is still
 * `bwrapPid`'s child once held (not a reused pid).
 */
async function holdNamespaces(pid: number, bwrapPid: number): Promise<HeldNamespaces | null> {
  const [net, user] = await Promise.all(['net', 'user'].map((k) => open(`/proc/${pid}/ns/${k}`, 'r').catch(() => null)));
  const drop = async () => { await Promise.all([net?.close(), user?.close()].map((p) => p?.catch(() => undefined))); return null; };
  if (!net || !user) return drop();
  const held = (h: FileHandle) => readlink(`/proc/self/fd/${h.fd}`).catch(() => null);
  const own = (k: string) => readlink(`/proc/self/ns/${k}`).catch(() => null);
  const [jobNet, hostNet, jobUser, hostUser, children] = await Promise.all([
    held(net), own('net'), held(user), own('user'), readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(() => ''),
  ]);
  if (!jobNet || !hostNet || jobNet === hostNet || !children.trim().split(/\s+/).includes(String(pid))) return drop();
  if (jobUser === hostUser) { await user.close().catch(() => undefined); return { net, user: null }; }
  return { net, user };
}

/** Loopback or wildcard TCP ports listening in the network namespace of `pid`. */
async function listening(pid: number): Promise<number[]> {
  const ports = new Set<number>();
  for (const f of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${f}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue; // LISTEN
      const [addr, hex] = (cols[1] ?? '').split(':');
      const local = /^(0100007F|00000000|0{32}|0{24}01000000|0{16}FFFF00000100007F)$/i.test(addr ?? '');
      if (local && hex) ports.add(parseInt(hex, 16));
    }
  }
  return [...ports];
}
