// The sandbox's network (docs/security.md), through the real SDK against the fake API: a
// scripted model's commands reach a local HTTP server (standing in for any host) only when
// agentTeams.sandbox.allowedDomains lists it or the user allows it; the user is asked once
// per host; nothing gets out around the proxy.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { freePort } from '../helpers/ports';
import { sleep } from '../helpers/tmp';
import { detectEngine } from '../../src/core/sandbox/engine';
import type { NetworkDecision } from '../../src/core/sandbox/sandbox';

async function server(t: { after(fn: () => Promise<void>): void }, body: string): Promise<number> {
  const s: Server = createServer((_req, res) => res.end(body));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => s.close(() => r())));
  return (s.address() as AddressInfo).port;
}

test('network: an allowed host is reached (http and CONNECT); another is asked once and blocked on deny; "always" adds it; nothing goes around the proxy', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const [allowed, asked, always] = await Promise.all([server(t, 'hello-allowed'), server(t, 'hello-asked'), server(t, 'hello-always')]);
  const questions: string[] = [];
  const answers: Record<string, NetworkDecision> = { [`127.0.0.1:${asked}`]: 'deny', [`127.0.0.1:${always}`]: 'always' };
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: [`127.0.0.1:${allowed}`], autoAllow: true } }, 'deny', {
    network: async (_agent, host) => (questions.push(host), answers[host] ?? 'deny'),
  });
  const curl = 'curl -s -m 10';
  h.api.script('lead',
    reply(toolUse('bash', { command: `${curl} http://127.0.0.1:${allowed}/; echo; ${curl} -p http://127.0.0.1:${allowed}/; echo` })),
    reply(toolUse('bash', { command: `${curl} http://127.0.0.1:${asked}/; echo; ${curl} http://localhost:${asked}/; echo` })),
    reply(toolUse('bash', { command: `${curl} --noproxy '*' http://127.0.0.1:${allowed}/; echo " direct=$?"` })),
    reply(toolUse('bash', { command: `${curl} http://127.0.0.1:${always}/; echo; ${curl} http://127.0.0.1:${always}/` })),
    'Done.',
  );
  await h.rt.askLead('Fetch.');
  const r = toolResults(h);
  assert.match(r[0]!, /^hello-allowed\nhello-allowed/, 'allowed host: plain http and through CONNECT');
  assert.doesNotMatch(r[1]!, /hello-asked/);
  assert.match(r[1]!, /Blocked: the sandbox does not allow 127\.0\.0\.1/);
  assert.match(r[1]!, /Blocked: the sandbox does not allow localhost/);
  assert.match(r[2]!, /direct=7/, 'a connection around the proxy finds no network');
  assert.match(r[3]!, /hello-always\nhello-always/);
  assert.deepEqual(questions, [`127.0.0.1:${asked}`, `127.0.0.1:${always}`], 'each host asked once (localhost and 127.0.0.1 are one)');
  assert.deepEqual(h.bashAsks, [], 'no command was asked about');
});

test('a dev server in a sandboxed background job is reached on the host at its port, by the user and by a later command', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const port = await freePort();
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: [`localhost:${port}`], autoAllow: true } }, 'deny');
  const serve = `node -e "require('http').createServer((q, s) => s.end('from-the-job')).listen(${port}, '127.0.0.1')"`;
  h.api.script('lead',
    reply(toolUse('bash', { command: serve, run_in_background: true })),
    reply(toolUse('bash', { command: `for i in $(seq 50); do curl -sf -m 5 http://localhost:${port}/ && break; sleep 0.2; done` })),
    'Served.',
  );
  await h.rt.askLead('Start the dev server and check it.');
  assert.match(toolResults(h)[1]!, /from-the-job/, 'a later sandboxed command reaches it through the proxy');
  const body = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
  assert.equal(body, 'from-the-job', 'the user reaches it on this machine');
  assert.ok(h.events.some((x) => x.type === 'notice' && x.message.includes(`reach it at localhost:${port}`)));
});

/** The agent's network namespace holder (net-holder.ts): this process's bwrap child that runs socat with `--unshare-net`. */
async function holders(): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv.includes('--unshare-net') && argv.includes('--dev-bind') && argv.some((a) => a.startsWith('TCP-LISTEN:'))) out.push(Number(name));
  }
  return out;
}

const nsOf = (output: string) => /net:\[\d+\]/.exec(output)?.[0];

test("an agent's commands share one network namespace and bridge, never the host's; when the bridge dies the next command gets a new one, still cut off", async (t) => {
  const e = await detectEngine();
  if (!e.engine || !e.nsenter) return t.skip(`no sandbox with nsenter on this machine: ${e.reason ?? 'nsenter missing'}`);
  const port = await server(t, 'hello-allowed');
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: [`127.0.0.1:${port}`], autoAllow: true } }, 'deny');
  const fetchBoth = `readlink /proc/self/ns/net; curl -s -m 10 http://127.0.0.1:${port}/; echo; curl -s -m 10 --noproxy '*' http://127.0.0.1:${port}/; echo " direct=$?"`;
  h.api.script('lead', reply(toolUse('bash', { command: fetchBoth })), reply(toolUse('bash', { command: fetchBoth })), 'Done.');
  await h.rt.askLead('Fetch twice.');
  const [first, second] = toolResults(h);
  const hostNs = await readlink('/proc/self/ns/net');
  assert.match(first!, /hello-allowed\n direct=7/);
  assert.match(second!, /hello-allowed\n direct=7/);
  assert.ok(nsOf(first!) && nsOf(first!) !== hostNs, 'a namespace of its own, not the host\'s');
  assert.equal(nsOf(second!), nsOf(first!), 'the agent\'s commands share it');
  const before = await holders();
  assert.equal(before.length, 1, 'one bridge for the agent');
  process.kill(before[0]!, 'SIGKILL');
  for (let i = 0; i < 100 && (await holders()).length; i++) await new Promise((r) => setTimeout(r, 20));
  h.api.script('lead', reply(toolUse('bash', { command: fetchBoth })), 'Done again.');
  await h.rt.askLead('Fetch again.');
  const third = toolResults(h)[2]!;
  assert.match(third, /hello-allowed\n direct=7/, 'a new bridge: the proxy reached, nothing around it');
  assert.ok(nsOf(third) && nsOf(third) !== hostNs, 'a namespace of its own again, not the host\'s');
  const after = await holders();
  assert.equal(after.length, 1, 'one new bridge');
  assert.notEqual(after[0], before[0]);
});

test('without nsenter each command starts its own bridge, and reaches an allowed host through it at once', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const port = await server(t, 'hello-allowed');
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: [`127.0.0.1:${port}`], autoAllow: true } }, 'deny');
  await h.rt.dispose();
  // In the workspace: the system temp folder is private inside the sandbox, so socat must be found elsewhere.
  const bin = join(h.root, 'tools');
  await mkdir(bin);
  await Promise.all([symlink(e.bwrap!, join(bin, 'bwrap')), symlink(e.socat!, join(bin, 'socat'))]);
  await h.restart({ sandboxPath: bin });
  assert.equal((await detectEngine(bin)).nsenter, null);
  h.api.script('lead', reply(toolUse('bash', { command: `curl -s -m 10 http://127.0.0.1:${port}/; echo; curl -s -m 10 --noproxy '*' http://127.0.0.1:${port}/; echo " direct=$?"` })), 'Done.');
  await h.rt.askLead('Fetch.');
  assert.match(toolResults(h)[0]!, /^hello-allowed\n direct=7/);
  assert.deepEqual(await holders(), [], 'no shared bridge');
});

test('a command reaching ten hosts at once gets at most 3 questions; the rest are denied unasked and asked when they come back; headless, 5 notices at most', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const questions: string[] = [];
  let waiting = 0;
  let mostWaiting = 0;
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } }, 'allow', {
    // The user takes a while over the first three, then answers at once.
    network: async (_agent, host) => {
      questions.push(host);
      mostWaiting = Math.max(mostWaiting, ++waiting);
      if (questions.length <= 3) await new Promise((r) => setTimeout(r, 1_500));
      waiting--;
      return 'deny';
    },
  });
  const hosts = Array.from({ length: 10 }, (_, i) => `h${i + 1}.example`);
  const each = (sep: string) => hosts.map((x) => `curl -s -m 10 -o /dev/null -w "${x}=%{http_code}\\n" http://${x}/`).join(sep);
  h.api.script('lead',
    // A model told to wear the user down with questions: ten hosts at once.
    reply(toolUse('bash', { command: `${each(' & ')} & wait` })),
    // The same hosts again, one after another.
    reply(toolUse('bash', { command: each('; ') })),
    'Done.',
  );
  await h.rt.askLead('Fetch them.');
  const r = toolResults(h);
  for (const x of hosts) assert.match(r[0]!, new RegExp(`${x.replace('.', '\\.')}=403`), `${x} refused`);
  assert.equal(mostWaiting, 3, 'never more than 3 questions waiting');
  assert.equal(questions.length, 10, `the ones denied unasked are asked when they come back, each host once: ${questions.join(', ')}`);
  assert.equal(new Set(questions).size, 10);
  const said = h.events.filter((ev) => ev.type === 'notice' && /not asked: 3 questions about hosts already wait/.test(ev.message));
  assert.equal(said.length, 5, 'the seven denied unasked are said in five notices, the last saying the rest are not');

  // Headless (nobody to ask): every host denied, said at most five times.
  const quiet = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } }, 'allow');
  quiet.api.script('lead', reply(toolUse('bash', { command: `${each(' & ')} & wait` })), 'Done.');
  await quiet.rt.askLead('Fetch them.');
  assert.equal((toolResults(quiet)[0]!.match(/=403/g) ?? []).length, 10);
  const notices = quiet.events.filter((ev) => ev.type === 'notice' && /wanted to reach h\d+\.example/.test(ev.message));
  assert.equal(notices.length, 5, notices.map((n) => (n as { message: string }).message).join('\n'));
  assert.match((notices.at(-1) as { message: string }).message, /Further hosts lead's commands are denied without a question are not said/);
});

test('a plain `npm test` in the sandbox asks about no host: update checks are off in every command\'s environment', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const questions: string[] = [];
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } }, 'allow', {
    network: async (_agent, host) => (questions.push(host), 'deny'),
  });
  await writeFile(join(h.root, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo tests-ran' } }));
  h.api.script('lead',
    reply(toolUse('bash', { command: 'env -u CI npm test; echo "notifier=$npm_config_update_notifier no_update=$NO_UPDATE_NOTIFIER"' })),
    'Done.');
  await h.rt.askLead('Run the tests.');
  const [out] = toolResults(h);
  assert.match(out!, /tests-ran/);
  assert.match(out!, /notifier=false no_update=1/);
  await sleep(1_000); // an update check runs beside the command
  assert.deepEqual(questions, [], 'no question about the registry');
});
