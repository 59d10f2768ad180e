// Split brain after a pause, for real (issue 12 item 2): two host processes; the one running a
// teammate is frozen with SIGSTOP past its lease while the teammate's command runs, the other
// takes the teammate over, then the first is woken with SIGCONT. It must stop cleanly for that
// teammate: no model call, no transcript line, no mail delivered twice.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { keyFingerprint } from '../fake-api/recorder';
import { reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const HEARTBEAT_MS = 300;

interface Host {
  proc: ChildProcess;
  lines: Array<{ notice?: string; agent?: string | null; ready?: string }>;
}

function startHost(root: string, url: string, id: string, extra: string[] = []): Host {
  const proc = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'lease-host.js'), root, url, id, `sk-${id}`, String(HEARTBEAT_MS), ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const host: Host = { proc, lines: [] };
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    try {
      host.lines.push(JSON.parse(l) as Host['lines'][number]);
    } catch { /* not ours */ }
  });
  return host;
}

test('a host frozen with SIGSTOP past its lease and woken after another took over stops cleanly: no second writer, nothing delivered twice', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  const mail = (n: number) => `MAIL-${n}-${'x'.repeat(8)}`;
  h.api.script('amy',
    reply(toolUse('bash', { command: 'sleep 2; echo A-SLEPT' })),
    reply(toolUse('idle', {})),
    reply(toolUse('idle', {})),
    reply(toolUse('idle', {})),
  );
  const a = startHost(h.root, h.api.url, 'host-a', ['amy', 'Run the build.']);
  t.after(() => { a.proc.kill('SIGCONT'); a.proc.kill('SIGKILL'); });
  // Frozen while the command runs: its process group is recorded once it has started.
  const processes = join(h.root, '.team', 'processes');
  await waitFor(async () => (await readdir(processes).catch(() => [])).some((f) => f.endsWith('.json')), 30_000, 'amy\'s command started in host A');
  // Mail that A would deliver with the command's result.
  for (const n of [1, 2, 3]) await partsOf(h.rt).team.mailbox.send({ from: 'user', to: 'amy', type: 'message', content: mail(n) });
  a.proc.kill('SIGSTOP');
  // Past three heartbeats: A's lease is stale, though its process is alive.
  await sleep(HEARTBEAT_MS * 5);
  const b = startHost(h.root, h.api.url, 'host-b');
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('amy'))?.host?.id === 'host-b', 30_000, 'host B takes amy over');
  await waitFor(() => h.api.requests('amy').length >= 2, 30_000, 'B delivers the mail');
  // A's command has ended meanwhile; A wakes.
  await sleep(2500);
  const wokeAt = h.api.requests().length;
  a.proc.kill('SIGCONT');
  await waitFor(() => a.lines.some((l) => l.agent === 'amy' && /now run by another window \(host host-b\)|run by host host-b now/.test(l.notice ?? '')), 30_000, 'A stands down for amy');
  for (const n of [4, 5]) await partsOf(h.rt).team.mailbox.send({ from: 'user', to: 'amy', type: 'message', content: mail(n) });
  await waitFor(() => h.api.requests('amy').some((r) => JSON.stringify(r.body.messages).includes(mail(5))), 30_000, 'B delivers later mail');
  await sleep(1000);

  // No model call from A after it woke.
  const fromA = h.api.requests().slice(wokeAt).filter((r) => r.keyFingerprint === keyFingerprint('sk-host-a'));
  assert.equal(fromA.length, 0, `A called the model after waking: ${fromA.map((r) => r.agent).join(', ')}`);
  // One writer: after B's fence every line of amy's transcript is B's.
  const fences = await partsOf(h.rt).team.fences.list('amy');
  const bFence = fences.find((f) => f.host === 'host-b')!;
  assert.ok(bFence, 'B fenced amy');
  const text = await readFile(partsOf(h.rt).team.paths.transcript('amy'), 'utf8');
  const lines = text.split('\n').filter(Boolean);
  let offset = 0;
  for (const l of lines) {
    const e = JSON.parse(l) as { epoch?: number };
    if (offset >= bFence.at) assert.equal(e.epoch, bFence.epoch, `a line after B took over was written by epoch ${e.epoch}: ${l.slice(0, 200)}`);
    offset += Buffer.byteLength(l) + 1;
  }
  assert.match(text, /echo A-SLEPT/, 'A had started the command before it was frozen');
  assert.doesNotMatch(text, /"content":"A-SLEPT/, 'A\'s command result was never written');
  // Each message delivered once: once in the conversation B sends.
  const last = JSON.stringify(h.api.requests('amy').at(-1)!.body.messages);
  for (const n of [1, 2, 3, 4, 5]) assert.equal(last.split(mail(n)).length - 1, 1, `${mail(n)} delivered once`);
  for (const n of [1, 2, 3, 4, 5]) assert.equal(text.split(mail(n)).length - 1, 1, `${mail(n)} in one transcript line`);
  // A stopped cleanly: alive, amy not retired, and it exits 0 when asked.
  assert.equal(a.proc.exitCode, null, 'A is still running');
  assert.notEqual((await partsOf(h.rt).team.roster.get('amy'))?.status, 'shutdown');
  const aExit = new Promise<number | null>((r) => a.proc.once('exit', (c) => r(c)));
  a.proc.kill('SIGTERM');
  assert.equal(await aExit, 0);
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('amy'))?.host?.id === 'host-b', 10_000, 'amy stays with B after A left');
  assert.ok(!b.lines.some((l) => /crashed/.test(l.notice ?? '')), 'B ran amy without a crash');
});
