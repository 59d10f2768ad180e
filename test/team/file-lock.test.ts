// The cross-process lock under short-lived owners: processes that take the lock once and
// exit at once (CLI commands) are where a stale-lock check can mistake a live lock for the
// dead owner's one it read a moment before.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { tempDir, waitFor } from '../helpers/tmp';

function run(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'lock-counter.js'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => resolve(code));
  });
}

test('processes that take the lock once and exit: every increment counted, none lost', async (t) => {
  const root = await tempDir(t);
  const lock = join(root, 'counter.lock');
  const counter = join(root, 'counter');
  const rounds = 8;
  const perRound = 20;
  for (let r = 0; r < rounds; r++) {
    const codes = await Promise.all(Array.from({ length: perRound }, () => run([lock, counter])));
    assert.ok(codes.every((c) => c === 0), `round ${r}: ${codes.join(',')}`);
    assert.equal(Number(await readFile(counter, 'utf8')), (r + 1) * perRound, `after round ${r + 1}`);
  }
  assert.deepEqual((await readdir(root)).sort(), ['counter'], 'no lock or breaker file left behind');
});

test('a lock held by a stopped process is taken after 2 s, and the stopped one writes nothing when it wakes', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(async () => team.dispose());
  await team.spawnMember('amy', 'dev');
  const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'roster-stopper.js'), root, 'amy', '1500'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => { child.kill('SIGCONT'); child.kill('SIGKILL'); });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await waitFor(() => out.includes('holding'), 30_000, 'the child inside its roster update');
  child.kill('SIGSTOP');
  // Without the stopped-holder rule this waits for the lock until it times out (30 s).
  const started = Date.now();
  await team.roster.update((c) => { c.members.find((m) => m.name === 'amy')!.role = 'set by the live process'; });
  assert.ok(Date.now() - started < 20_000, `took the stopped process's lock in ${Date.now() - started} ms`);
  child.kill('SIGCONT');
  await new Promise((r) => child.once('exit', r));
  assert.match(out, /lost: lost lock/);
  assert.equal((await team.roster.get('amy'))?.role, 'set by the live process');
  assert.deepEqual((await readdir(join(root, '.team'))).filter((f) => f.includes('.lock')), [], 'no lock left behind');
});
