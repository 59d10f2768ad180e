// No unix socket of the host is reachable from a sandboxed command (docs/security.md
// "sockets"): host programs listen in the home folder (an IPC socket in `~/.vscode-server`, one
// right in `~`), in another folder, and in the workspace itself, all outside the /tmp and /run
// the sandbox replaces. A scripted model through the real SDK tries each with socat, python3 and
// node; the home folder and the workspace stay readable.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

/** Outside the system temp folder (private inside the sandbox), so seen inside through the read-only root. */
const BASE = join(__dirname, '..', '..', '..', 'test', '.tmp', `host-sockets-${process.pid}`);

async function listen(t: { after(fn: () => Promise<void>): void }, path: string, hits: Map<string, number>): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const s: Server = createServer((c) => { hits.set(path, (hits.get(path) ?? 0) + 1); c.on('error', () => undefined).end('HOST-SOCKET\n'); });
  await new Promise<void>((r) => s.listen(path, r));
  t.after(() => new Promise<void>((r) => s.close(() => r())));
}

const TRY = (p: string) => [
  `socat -u OPEN:/dev/null UNIX-CONNECT:${p} 2>/dev/null && echo "socat reached ${p}" || echo "socat refused"`,
  `/usr/bin/python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("python reached", sys.argv[1])' ${p} 2>/dev/null || echo "python refused"`,
  `node -e 'require("net").connect(process.argv[1]).on("connect", () => { console.log("node reached", process.argv[1]); process.exit(); }).on("error", () => console.log("node refused"))' ${p}`,
].join('; ');

test("sockets the host listens on in the home folder, another folder and the workspace are out of a sandboxed command's reach", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  // A checkout under the temp folder (a clone in /tmp) has its fixture home hidden by the sandbox's private /tmp.
  if (BASE.startsWith(tmpdir() + sep)) return t.skip(`the checkout is under ${tmpdir()}, private inside the sandbox: clone it elsewhere to run this test`);
  const home = join(BASE, 'home');
  t.after(() => rm(BASE, { recursive: true, force: true }));
  const realHome = process.env.HOME;
  process.env.HOME = home;
  t.after(() => { process.env.HOME = realHome; });
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  const sockets = [join(home, '.vscode-server', 'code-ipc.sock'), join(home, 'agent.sock'), join(BASE, 'srv', 'run', 'svc.sock'), join(h.root, 'dev.sock')];
  const hits = new Map<string, number>();
  for (const s of sockets) await listen(t, s, hits);
  await writeFile(join(home, 'notes.txt'), 'home-readable\n');
  await writeFile(join(h.root, 'README.md'), 'workspace-readable\n');
  h.api.script('lead',
    reply(toolUse('bash', { command: `${sockets.map(TRY).join('; ')}; ls -l ${sockets.join(' ')}; cat ${join(home, 'notes.txt')} README.md` })),
    'Tried.');
  await h.rt.askLead('Try the sockets.');
  const out = toolResults(h)[0]!;
  assert.equal(out.match(/refused/g)?.length, sockets.length * 3, out);
  assert.doesNotMatch(out, /reached|HOST-SOCKET/);
  assert.deepEqual([...hits], [], 'no connection reached a host socket');
  assert.match(out, /home-readable\nworkspace-readable/, 'the home folder and the workspace stay readable');
});
