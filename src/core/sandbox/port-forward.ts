// A dev server in a sandboxed background job listens in that job's own network namespace
// (docs/security.md), held by a NetHolder of the job's own (net-holder.ts). This forwards each
// loopback port it listens on to the same port on the host's 127.0.0.1, so the user's browser
// and other agents' commands (through the proxy, once loopback is allowed) reach it: the host
// polls the namespace's listening sockets through /proc, and for each connection runs socat
// *in that namespace* (nsenter), which connects to 127.0.0.1:<port> there. No path is involved
// that the job could swap: the namespace is held open by descriptor, checked to be the one the
// holder made, and passed to nsenter as that descriptor. (A forwarding socket in a folder the
// job writes, checked and then connected to by path, let a job that swapped it for a symlink
// send the host's connections to a host socket of its choice:
// test/runtime/sandbox-forward-swap.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { PROXY_PORT } from './bwrap';
import type { HeldNamespaces, NetHolder } from './net-holder';

const POLL_MS = 1000;

export interface ForwardTools {
  nsenter: string;
  socat: string;
}

export class PortForwarder {
  private readonly servers = new Map<number, Server>();
  private readonly refused = new Set<number>();
  private readonly links = new Set<Socket | ChildProcess>();
  private ns: Promise<HeldNamespaces | null> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly tools: ForwardTools, private readonly net: NetHolder, private readonly onForward: (port: number, ok: boolean) => void) {}

  /** Starts watching the job's namespace. */
  watch(): void {
    const tick = async () => {
      if (this.stopped) return;
      const ports = await listening(this.net.pid);
      // Held from the first poll that finds a port, once checked to be the holder's namespace.
      if (ports.length && !this.stopped && !(await this.ns)) this.ns = this.net.namespaces();
      if (ports.length && !this.stopped && (await this.ns)) for (const port of ports) this.forward(port);
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
