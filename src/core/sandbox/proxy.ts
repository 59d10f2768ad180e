// The one way out of a sandbox's network namespace (docs/security.md): an HTTP proxy on a
// unix socket in the agent's socket folder (bwrap.ts bridges 127.0.0.1:3128 inside to it), and
// of a container teammate's (its bridge's connections are handed to `accept`: docs/containers.md).
// CONNECT (https, anything tunnelled) and plain http requests go out only to a host the
// `allow` callback accepts. A host is judged by its name before anything is resolved: asking
// DNS about a name is already sending it out (`<secret>.attacker.example`). Only an allowed
// name is resolved, and one that resolves to this machine is judged as `localhost` too (no
// reaching the host's local services through a DNS trick). Spellings: hosts.ts.
import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { canonicalHost, isLoopback } from './hosts';

/** Whether a command may reach `host:port`; `host` is canonical (hosts.ts canonicalHost). */
export type HostGate = (host: string, port: number) => Promise<boolean>;

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

  /**
   * Serves one connection that arrived another way than the socket (a container's bridge,
   * container/net-bridge.ts): judged exactly as one on the socket.
   */
  accept(conn: Duplex): void {
    this.server.emit('connection', conn);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Where to connect for `host`, or why not: judged by name first, resolved only once allowed. */
  private async target(host: string, port: number): Promise<{ address: string } | { refused: string }> {
    const h = canonicalHost(host);
    if (!h || !Number.isInteger(port) || port <= 0 || port > 65535) return { refused: 'a host and port are needed' };
    const refused = { refused: `the sandbox does not allow ${isIP(h) === 6 ? `[${h}]` : h}:${port} (agentTeams.sandbox.allowedDomains)` };
    if (!(await this.allow(h, port))) return refused;
    // `localhost` and `*.localhost` are this machine without asking DNS (RFC 6761).
    if (isLoopback(h) && !isIP(h)) return { address: '127.0.0.1' };
    if (isIP(h)) return { address: h };
    let address: string;
    try { address = (await lookup(h)).address; } catch { return { refused: `cannot resolve ${h}` }; }
    // An allowed outside name that resolves to this machine is judged as this machine too.
    if (isLoopback(address) && !(await this.allow('localhost', port))) return refused;
    return { address };
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
    const headers = endToEnd(req.headers);
    // The host judged is the host named: the absolute URL's, whatever Host came with it (RFC 9112
    // §3.2.2), or a server behind a shared front (a CDN) would route to one nobody allowed.
    headers.host = url.host;
    const out = request({ host: t.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false }, (r) => {
      res.writeHead(r.statusCode ?? 502, endToEnd(r.headers));
      r.pipe(res);
    });
    out.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Proxy error: ${e.message}\n`);
    });
    req.pipe(out);
  }
}

/**
 * A message's end-to-end headers: each hop's own (RFC 9110 §7.6.1: Connection and those it names,
 * keep-alive, proxy credentials) stay on their side of the proxy, which speaks for itself on
 * each connection (an HTTP/1.0 client is answered and closed, whatever the server kept open).
 */
function endToEnd(h: IncomingMessage['headers']): IncomingMessage['headers'] {
  const named = String(h.connection ?? '').toLowerCase().split(',').map((x) => x.trim()).filter(Boolean);
  const out = { ...h };
  for (const k of ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', ...named]) delete out[k];
  return out;
}
