// The one way out of a sandbox's network namespace (docs/security.md): an HTTP proxy on a
// unix socket in the agent's socket folder (bwrap.ts bridges 127.0.0.1:3128 inside to it).
// CONNECT (https, anything tunnelled) and plain http requests go out only to a host the
// `allow` callback accepts; the name is resolved here and a name that resolves to loopback
// counts as loopback (no reaching the host's local services through a DNS trick).
import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Whether a command may reach `host:port`; `host` is lower case, without brackets. */
export type HostGate = (host: string, port: number) => Promise<boolean>;

export const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || /^127\./.test(host) || host === '::ffff:127.0.0.1';
}

export class NetworkProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly allow: HostGate) {
    this.server = createServer((req, res) => void this.plain(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
  }

  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(path, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Where to connect for `host`, or why not. */
  private async target(host: string, port: number): Promise<{ address: string } | { refused: string }> {
    const h = host.replace(/^\[|\]$/g, '').toLowerCase();
    if (!h || !Number.isInteger(port) || port <= 0 || port > 65535) return { refused: 'a host and port are needed' };
    let address = h === 'localhost' ? '127.0.0.1' : h;
    if (!isIP(address)) {
      try { address = (await lookup(h)).address; } catch { return { refused: `cannot resolve ${h}` }; }
    }
    // An outside name that resolves to loopback is judged as loopback too.
    const ok = await this.allow(h, port) && (!isLoopback(address) || isLoopback(h) || await this.allow('localhost', port));
    return ok ? { address } : { refused: `the sandbox does not allow ${h}:${port} (agentTeams.sandbox.allowedDomains)` };
  }

  private async tunnel(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const t = m ? await this.target(m[1]!, Number(m[2])) : { refused: 'CONNECT needs host:port' };
    if ('refused' in t) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nBlocked: ${t.refused}\n`);
      return;
    }
    const out = connect(Number(m![2]), t.address, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) out.write(head);
      out.pipe(socket);
      socket.pipe(out);
    });
    this.sockets.add(out);
    out.once('close', () => { this.sockets.delete(out); socket.destroy(); });
    out.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n'));
    socket.once('close', () => out.destroy());
  }

  private async plain(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try { url = new URL(req.url ?? ''); } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Blocked: only proxy requests (an absolute http:// URL) are served\n');
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Blocked: plain requests must be http://\n');
      return;
    }
    const port = Number(url.port || 80);
    const t = await this.target(url.hostname, port);
    if ('refused' in t) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`Blocked: ${t.refused}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const out = request({ host: t.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Proxy error: ${e.message}\n`);
    });
    req.pipe(out);
  }
}

/** `entry` from allowedDomains admits `host:port`: exact, `*.` for subdomains, `:port` for one port; `localhost` for any loopback name. */
export function domainMatches(entry: string, host: string, port: number): boolean {
  const e = entry.trim().toLowerCase();
  const bare6 = !e.startsWith('[') && (e.match(/:/g)?.length ?? 0) > 1;
  const m = bare6 ? [e, e, undefined] : /^\[?(.*?)\]?(?::(\d+))?$/.exec(e)!;
  const name = m[1]!;
  if (m[2] && Number(m[2]) !== port) return false;
  if (name.startsWith('*.')) return host.endsWith(name.slice(1));
  if (isLoopback(name) && isLoopback(host)) return true;
  return host === name;
}
