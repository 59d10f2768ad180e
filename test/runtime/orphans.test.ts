// Issue 12, item 10: commands an agent left running on a host killed with -9 are killed by the
// host that takes over — only when the recorded process is still the one that was recorded.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { bootId, procStat } from '../../src/core/exec/process-ledger';
import type { ProcessRecord } from '../../src/shared/schemas';
import { writeJsonAtomic } from '../../src/core/util/atomic-file';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

/** Alive and not a zombie (an init that does not reap leaves killed orphans as zombies). */
async function running(pid: number): Promise<boolean> {
  const s = await procStat(pid);
  return !!s && s.state !== 'Z';
}

async function records(dir: string): Promise<ProcessRecord[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as ProcessRecord));
}

function sleeper(t: TestContext): ChildProcess {
  const c = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  t.after(() => { try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* gone */ } });
  return c;
}

/** A host in a child process whose teammate sam starts a background and a foreground `sleep 1000`; resolves once both are recorded. */
async function childHost(t: TestContext, h: Harness, sandboxPath?: string): Promise<{ child: ChildProcess; recs: ProcessRecord[]; dir: string }> {
  h.api.script('sam',
    reply(toolUse('bash', { command: 'sleep 1000', run_in_background: true })),
    reply(toolUse('bash', { command: 'sleep 1000' })),
    reply(toolUse('idle', {})),
  );
  const env = { ...process.env, ...(sandboxPath ? { AGENT_TEAMS_TEST_SANDBOX_PATH: sandboxPath } : {}) };
  const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'runtime-host.js'), h.root, h.api.url, 'sam', 'Start the server.'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  t.after(() => child.kill('SIGKILL'));
  const dir = join(h.root, '.team', 'processes');
  await waitFor(async () => (await records(dir)).length === 2, 30_000, 'both sleeps recorded by the child host');
  const recs = await records(dir);
  assert.deepEqual(recs.map((r) => r.kind).sort(), ['bash', 'job']);
  assert.ok(recs.every((r) => r.agent === 'sam' && r.command === 'sleep 1000' && r.host.pid === child.pid));
  t.after(() => { for (const r of recs) try { process.kill(-r.pgid, 'SIGKILL'); } catch { /* gone */ } });
  return { child, recs, dir };
}

test('in the sandbox a host killed with -9 takes its commands and jobs with it (--die-with-parent, pid namespaces)', async (t) => {
  if (!(await detectEngine()).engine) return t.skip('no sandbox on this machine');
  const h = await harness(t);
  await h.rt.dispose();
  const { child, recs } = await childHost(t, h);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  for (const r of recs) await waitFor(async () => !(await running(r.pgid)), 5_000, `the ${r.kind} sleep ended with its host`);
});

test('without a sandbox, a host killed with -9 leaves no commands behind: the next host kills its foreground and background sleeps', async (t) => {
  const h = await harness(t);
  // This process's own host must not sweep first: the child is the only host until the restart.
  await h.rt.dispose();
  const { child, recs, dir } = await childHost(t, h, '/nonexistent');
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  // The orphans outlive their host...
  await new Promise((r) => setTimeout(r, 300));
  for (const r of recs) assert.ok(await running(r.pgid), `sleep (${r.kind}) outlives the killed host`);
  // ...until a host opens the team and takes sam over.
  await h.restart();
  for (const r of recs) await waitFor(async () => !(await running(r.pgid)), 15_000, `the ${r.kind} sleep killed`);
  await waitFor(async () => (await records(dir)).length === 0, 15_000, 'the records removed');
  assert.ok(h.events.some((e) => e.type === 'notice' && /background job `sleep 1000` that sam started on a host that went away/.test(e.message)));
  assert.ok(h.events.some((e) => e.type === 'notice' && /command `sleep 1000` that sam started on a host that went away/.test(e.message)));
});

test('a recorded pid now used by an unrelated process is not killed; a live host\'s groups are left alone', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  const dir = join(h.root, '.team', 'processes');
  const boot = (await bootId())!;
  // A host that is gone: a process that has exited.
  const ghost = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => ghost.on('exit', r));
  const deadHost = { id: 'ghost', pid: ghost.pid!, start: '1', hostname: hostname() };
  const me = (await procStat(process.pid))!;
  const liveHost = { id: 'alive', pid: process.pid, start: me.start, hostname: hostname() };
  const base = { boot, agent: 'sam', kind: 'bash' as const, command: 'sleep 1000', started_at: Date.now() / 1000 };
  // 1. The dead host's group whose pid was reused: same pid, another start time.
  const stranger = sleeper(t);
  const strangerStart = (await waitFor(() => procStat(stranger.pid!)))!.start;
  await writeJsonAtomic(join(dir, 'reused.json'), { ...base, pgid: stranger.pid, start: String(Number(strangerStart) - 7), host: deadHost });
  // 2. A live host's group: not ours to kill.
  const kept = sleeper(t);
  await writeJsonAtomic(join(dir, 'live-host.json'), { ...base, pgid: kept.pid, start: (await waitFor(() => procStat(kept.pid!)))!.start, host: liveHost });
  // 3. The dead host's group, still the recorded process: killed.
  const orphan = sleeper(t);
  await writeJsonAtomic(join(dir, 'orphan.json'), { ...base, pgid: orphan.pid, start: (await waitFor(() => procStat(orphan.pid!)))!.start, host: deadHost });
  await h.restart();
  await waitFor(async () => !(await running(orphan.pid!)), 15_000, 'the orphan killed');
  assert.ok(await running(stranger.pid!), 'the process that reused a recorded pid survives');
  assert.ok(await running(kept.pid!), 'a live host\'s command survives');
  assert.deepEqual((await readdir(dir)).sort(), ['live-host.json'], 'dead hosts\' records are removed, the live host\'s kept');
});
