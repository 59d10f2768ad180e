// A dev server in a sandboxed background job listens in that job's own network namespace
// (docs/security.md). This forwards each loopback port it listens on to the same port on the
// host's 127.0.0.1, so the user's browser and other agents' commands (through the proxy, once
// loopback is allowed) reach it: the host polls the job's listening sockets through /proc, and
// each connection goes through a unix socket in the agent's socket folder to socat inside, which is told
// the port on the first line (bwrap.ts starts that socat for jobs).
import { readFile } from 'node:fs/promises';
import { lstat } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { PROXY_PORT } from './bwrap';

const POLL_MS = 1000;

export class PortForwarder {
  private readonly servers = new Map<number, Server>();
  private readonly refused = new Set<number>();
  private readonly sockets = new Set<Socket>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** @param socketPath the host path of the job's forwarding socket. */
  constructor(private readonly socketPath: string, private readonly onForward: (port: number, ok: boolean) => void) {}

  /** Starts watching the namespace of `bwrapPid` (the job's outer bwrap process). */
  watch(bwrapPid: number): void {
    const tick = async () => {
      if (this.stopped) return;
      const inner = (await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/)[0];
      if (inner) for (const port of await listening(Number(inner))) this.forward(port);
      if (!this.stopped) this.timer = setTimeout(() => void tick(), POLL_MS);
    };
    this.timer = setTimeout(() => void tick(), 200);
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const s of this.sockets) s.destroy();
    return Promise.all([...this.servers.values()].map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined);
  }

  private forward(port: number): void {
    if (port === PROXY_PORT || this.servers.has(port) || this.refused.has(port)) return;
    const server = createServer((client) => {
      this.sockets.add(client);
      client.pause();
      client.on('error', () => client.destroy());
      // The job can write its forwarding folder: never follow a symlink it put there to a host socket.
      void lstat(this.socketPath).then((st) => st.isSocket(), () => false).then((ok) => {
        if (!ok || client.destroyed) { client.destroy(); this.sockets.delete(client); return; }
        const inside = connect(this.socketPath, () => {
          inside.write(`${port}\n`);
          client.pipe(inside);
          inside.pipe(client);
          client.resume();
        });
        this.sockets.add(inside);
        const end = () => { client.destroy(); inside.destroy(); this.sockets.delete(client); this.sockets.delete(inside); };
        client.on('error', end).on('close', end);
        inside.on('error', end).on('close', end);
      });
    });
    this.servers.set(port, server);
    server.once('error', () => {
      // The port is taken on the host (another server, another job): said once, not retried.
      this.servers.delete(port);
      this.refused.add(port);
      this.onForward(port, false);
    });
    server.listen(port, '127.0.0.1', () => this.onForward(port, true));
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
