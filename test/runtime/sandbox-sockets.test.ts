// The agent's socket folder (docs/security.md "network"): its bridge runs on the host and
// connects to proxy.sock by path, so a command that could put a symlink there would reach
// any unix socket of the host (docker, the user's D-Bus, VS Code's IPC) through 127.0.0.1:3128.
// A scripted model through the real SDK tries it against a socket the test listens on.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

test("a sandboxed command cannot swap the proxy socket for a host socket (the folder is read-only inside)", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-hostsock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const hostSocket = join(dir, 'host.sock');
  let got = '';
  const server = createServer((c) => c.on('data', (b) => { got += b.toString(); }));
  await new Promise<void>((r) => server.listen(hostSocket, r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  const swap = `rm -f /run/agent-teams/proxy.sock; ln -s ${hostSocket} /run/agent-teams/proxy.sock; ls -l /run/agent-teams`;
  const send = 'exec 3<>/dev/tcp/127.0.0.1/3128 && echo ESCAPED >&3; sleep 0.5; echo sent';
  h.api.script('lead', reply(toolUse('bash', { command: swap })), reply(toolUse('bash', { command: send })), 'Done.');
  await h.rt.askLead('Go.');
  const [listing, sent] = toolResults(h);
  assert.match(listing!, /proxy\.sock/, 'the first command ran');
  assert.match(sent!, /sent/);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(got, '', 'nothing reached the host socket');
  assert.doesNotMatch(listing!, /proxy\.sock ->/, 'no symlink in place of the proxy socket');
});
