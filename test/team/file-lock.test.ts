// The cross-process lock under short-lived owners: processes that take the lock once and
// exit at once (CLI commands) are where a stale-lock check can mistake a live lock for the
// dead owner's one it read a moment before.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/tmp';

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
