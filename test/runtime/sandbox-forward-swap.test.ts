// Port forwarding never connects the host to a socket a job chose (docs/security.md "network"):
// a background job serves a port (so the host forwards it) and, meanwhile, swaps whatever
// forwarding socket it can write for a symlink to a host socket, over and over, so that a check
// of the path before connecting by path would pass and the connect would follow the symlink.
// A scripted model through the real SDK starts it; the test makes 300 connections to the port.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { freePort } from '../helpers/ports';
import { harness } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

/** One HTTP request to 127.0.0.1:`port` on the host; what came back (empty when nothing did). */
function get(port: number): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const c = connect(port, '127.0.0.1', () => c.write('GET / HTTP/1.0\r\nHost: x\r\n\r\n'));
    c.setTimeout(5000, () => c.destroy());
    c.on('data', (b) => { got += b.toString(); });
    c.on('error', () => undefined);
    c.on('close', () => resolve(got));
  });
}

test('a job that keeps swapping its forwarding socket for a symlink to a host socket sends none of 300 host connections there', async (t) => {
  const e = await detectEngine();
  if (!e.engine || !e.nsenter) return t.skip(`no sandbox with nsenter on this machine: ${e.reason ?? 'nsenter missing'}`);
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-fwdswap-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const hostSocket = join(dir, 'host.sock');
  let reached = 0;
  const target = createServer((c) => { reached++; c.destroy(); });
  await new Promise<void>((r) => target.listen(hostSocket, r));
  t.after(() => new Promise<void>((r) => target.close(() => r())));
  const port = await freePort();
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  const serve = `node -e "require('http').createServer((q, s) => s.end('from-the-job')).listen(${port}, '127.0.0.1')" &`;
  // Every forwarding socket the job can see or write, swapped as fast as a process can (perl):
  // the socket (kept by a hard link) and a symlink to the host's, in turn.
  const flip = `symlink("${hostSocket}", "l"); rename("l", $n); link("real.sock", "r"); rename("r", $n)`;
  const swap = `for i in $(seq 100); do ls /run/agent-teams/*/*.sock >/dev/null 2>&1 && break; sleep 0.05; done
for s in /run/agent-teams/*/*.sock; do (cd "$(dirname "$s")" && ln "$(basename "$s")" real.sock && exec perl -e '$n = shift; while (1) { ${flip} }' "$(basename "$s")") & done
wait`;
  h.api.script('lead', reply(toolUse('bash', { command: `${serve}\n${swap}`, run_in_background: true })), 'Started.');
  await h.rt.askLead('Start the dev server.');
  await waitFor(() => h.events.some((x) => x.type === 'notice' && x.message.includes(`reach it at localhost:${port}`)), 20_000, 'the forward');
  await waitFor(async () => (await get(port)).includes('from-the-job'), 20_000, 'the job serving');
  // The host is busy meanwhile, as an extension host is: whatever it checks before it connects is
  // checked further from the connect.
  const busy = setInterval(() => { const end = Date.now() + 3; while (Date.now() < end); }, 1);
  let served = 0;
  try {
    for (let i = 0; i < 30; i++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => get(port)));
      served += answers.filter((a) => a.includes('from-the-job')).length;
    }
  } finally {
    clearInterval(busy);
  }
  assert.equal(reached, 0, `${reached} of 300 host connections reached the host socket the job chose`);
  assert.equal(served, 300, 'every connection reached the job\'s server');
});
