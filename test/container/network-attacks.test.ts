// A container teammate attacking its own way out (docs/containers.md, "Network"): through the
// real runtime and SDK, a scripted teammate does what a red-team run through the real CLI found
// (docs/security.md). The host's memory stays bounded when the teammate floods the bridge's stream
// (a tunnel whose far end never reads; forged opens while the bridge is stopped and reads none of
// the host's replies), and the proxy forwards the host it judged, whatever Host header came with it.
import assert from 'node:assert/strict';
import { createServer as httpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { test, type TestContext } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { engineForFile } from './engine-fixture';
import { containerTeam, findBridge, viaProxy } from './helpers';

const testEngine = engineForFile();
const MB = 1 << 20;

async function listening(t: TestContext, server: Server | ReturnType<typeof httpServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => { server.close(); (server as { closeAllConnections?: () => void }).closeAllConnections?.(); });
  return (server.address() as AddressInfo).port;
}

/** The most this process's buffers grew while `during` ran (sampled every 100 ms). */
async function peakGrowth(during: () => Promise<void>): Promise<number> {
  const base = process.memoryUsage();
  let peak = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.arrayBuffers - base.arrayBuffers, m.heapUsed - base.heapUsed);
  }, 100);
  try { await during(); } finally { clearInterval(timer); }
  return peak;
}

test('a tunnel whose far end never reads: what the teammate sends is not buffered on the host, and a bridge killed while held is started again', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  // An allowed host that accepts and never reads, and one that answers.
  const port = await listening(t, createServer((s) => s.pause()));
  const web = await listening(t, httpServer((_req, res) => res.end('ok\n')));
  const allowed = [`localhost:${port}`, `localhost:${web}`];
  const h = await containerTeam(t, engine, {}, { network: async (_a, host) => (allowed.includes(host) ? 'allow' : 'deny') });
  h.api.script('eve',
    reply(toolUse('bash', { command: `exec 6<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT localhost:${port} HTTP/1.1\\r\\n\\r\\n' >&6 && timeout 20 head -c 150000000 /dev/zero >&6; echo pushed` })),
    // The bridge is held by that tunnel (docs/containers.md): killed, the next command starts another.
    reply(toolUse('bash', { command: `${findBridge}; kill -9 $b` })),
    reply(toolUse('bash', { command: `${findBridge}; ${viaProxy(`http://localhost:${web}/`)}` })),
    reply(toolUse('idle', {})),
  );
  const grew = await peakGrowth(async () => {
    await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Push.', isolation: 'container' });
    await waitFor(async () => h.api.requests('eve').length >= 2, 120_000, 'eve pushed');
  });
  const text = (n: number) => JSON.stringify(h.api.requests('eve')[n]!.body.messages.at(-1));
  assert.match(text(1), /pushed/);
  assert.ok(grew < 48 * MB, `the host buffered ${Math.round(grew / MB)} MB of the 143 MB sent`);
  await waitFor(async () => h.api.requests('eve').length >= 4, 120_000, 'eve asked again');
  assert.match(text(3), /bridge=\d+[\s\S]*HTTP\/1\.1 200 OK[\s\S]*ok/, 'a new bridge carried the next request');
});

test('forged opens while the bridge reads nothing: the host buffers no replies, the bridge is stopped and started again', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const seen: string[] = [];
  const port = await listening(t, httpServer((req, res) => { seen.push(req.url!); res.end('ok\n'); }));
  const h = await containerTeam(t, engine, {}, { network: async (_a, host) => (host === `localhost:${port}` ? 'allow' : 'deny') });
  // 3 million opens (27 MB) into the bridge's stdout while it is stopped (SIGSTOP): it reads none of the host's answers.
  const flood = `${findBridge}; kill -STOP $b && perl -e 'print pack("aNN","O",$_,0) for 1000..3001000' > /proc/$b/fd/1; echo flooded; sleep 2; kill -CONT $b`;
  h.api.script('eve',
    reply(toolUse('bash', { command: flood })),
    reply(toolUse('bash', { command: `${findBridge}; ${viaProxy(`http://localhost:${port}/after`)}` })),
    reply(toolUse('idle', {})),
  );
  const grew = await peakGrowth(async () => {
    await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Flood.', isolation: 'container' });
    await waitFor(async () => h.api.requests('eve').length >= 3, 120_000, 'eve flooded');
  });
  const text = (n: number) => JSON.stringify(h.api.requests('eve')[n]!.body.messages.at(-1));
  assert.match(text(1), /flooded/);
  assert.ok(grew < 64 * MB, `the host grew by ${Math.round(grew / MB)} MB for 27 MB of forged opens`);
  const pid = (n: number) => /bridge=(\d+)/.exec(text(n))?.[1];
  assert.ok(pid(1) && pid(2) && pid(1) !== pid(2), `the forging bridge was stopped and a new one started: ${pid(1)} then ${pid(2)}`);
  assert.match(text(2), /HTTP\/1\.1 200 OK[\s\S]*ok/, 'the new bridge works');
  assert.deepEqual(seen, ['/after']);
});

test('the proxy sends the host it judged: a Host header naming another host does not reach the allowed server', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const hosts: string[] = [];
  const port = await listening(t, httpServer((req, res) => { hosts.push(String(req.headers.host)); res.end('ok\n'); }));
  const h = await containerTeam(t, engine, {}, { network: async (_a, host) => (host === `localhost:${port}` ? 'allow' : 'deny') });
  // Absolute-form for the allowed host, Host for another (a fronted CDN would route by it: RFC 9112 §3.2.2).
  h.api.script('eve',
    reply(toolUse('bash', { command: `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://localhost:${port}/fronted HTTP/1.1\\r\\nHost: secret.internal.example:8080\\r\\nConnection: close\\r\\n\\r\\n' >&3 && timeout 20 cat <&3` })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Front.', isolation: 'container' });
  await waitFor(async () => h.api.requests('eve').length >= 2, 120_000, 'eve asked');
  assert.match(JSON.stringify(h.api.requests('eve')[1]!.body.messages.at(-1)), /200 OK/);
  assert.deepEqual(hosts, [`localhost:${port}`]);
});
