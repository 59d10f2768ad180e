// Loopback is loopback (docs/security.md "network"): every spelling of this machine —
// `0.0.0.0`, `[::]`, `[::1]`, `[::ffff:7f00:1]`, `127.x.y.z`, `2130706433`, `*.localhost`, a name
// that resolves to it — is `localhost:<port>`, and a yes covers that one port. A scripted model
// through the real SDK gets one port allowed as `0.0.0.0` and tries the others' spellings.
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { isLoopback } from '../../src/core/sandbox/hosts';
import type { NetworkDecision } from '../../src/core/sandbox/sandbox';

async function server(t: { after(fn: () => Promise<void>): void }, body: string, host = '127.0.0.1'): Promise<number> {
  const s: Server = createServer((_req, res) => res.end(body));
  await new Promise<void>((r) => s.listen(0, host, r));
  t.after(() => new Promise<void>((r) => s.close(() => r())));
  return (s.address() as AddressInfo).port;
}

test('one yes to 0.0.0.0:<port> opens that port only; every other spelling of this machine on another port is the same one question, denied', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const [one, two, three] = await Promise.all([server(t, 'port-one'), server(t, 'port-two', '::'), server(t, 'port-three')]);
  const questions: string[] = [];
  // The machine's own name, where it resolves to this machine (as in most /etc/hosts): allowed by name, judged as localhost.
  const own = hostname().toLowerCase();
  const ownIsLocal = await lookup(own).then((a) => isLoopback(a.address), () => false);
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: ownIsLocal ? [own] : [], autoAllow: true } }, 'deny', {
    // The first question (the first command's) is answered yes, every later one no.
    network: async (_agent, host): Promise<NetworkDecision> => (questions.push(host) === 1 ? 'allow' : 'deny'),
  });
  const get = (u: string) => `curl -s -m 10 ${u}; echo " <${u}>"`;
  const spellings = ['0.0.0.0', '[::]', '[::1]', '[::ffff:7f00:1]', '[::ffff:127.0.0.1]', '127.3.2.1', '2130706433', 'app.localhost', 'LOCALHOST.'];
  h.api.script('lead',
    reply(toolUse('bash', { command: get(`http://0.0.0.0:${one}/`) })),
    reply(toolUse('bash', { command: spellings.map((s) => get(`http://${s}:${two}/`)).join('; ') })),
    reply(toolUse('bash', { command: `${get(`http://[::ffff:127.0.0.1]:${one}/`)}; ${get(`http://localhost:${one}/`)}` })),
    reply(toolUse('bash', { command: ownIsLocal ? get(`http://${own}:${three}/`) : 'echo skipped' })),
    'Done.',
  );
  await h.rt.askLead('Fetch.');
  const [first, others, again, byName] = toolResults(h);
  assert.match(first!, /^port-one/, 'the allowed port');
  assert.doesNotMatch(others!, /port-two/, 'no other port through another spelling');
  assert.equal(others!.match(/Blocked: the sandbox does not allow/g)?.length, spellings.length, others);
  assert.match(again!, /^port-one <.*>\nport-one </, 'the answer holds for that port in every spelling');
  const expected = [`0.0.0.0:${one}`, `0.0.0.0:${two}`];
  if (ownIsLocal) {
    assert.doesNotMatch(byName!, /port-three/, 'an allowed name that resolves to this machine is this machine');
    expected.push(`localhost:${three}`);
  }
  assert.deepEqual(questions, expected, 'one question per port of this machine, whatever the spelling');
});
