// The check after sandboxed commands (src/core/sandbox/after-run.ts) is never skipped for a
// command that ends while another check runs: it gets one that starts after it ended. Commands
// that end while a check waits to start share it; checkouts are checked apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AfterRunChecks } from '../../src/core/sandbox/after-run';

test('a command ending during a check gets a later one; those ending while one waits share it', async () => {
  const started: Array<{ checkout: string; agents: readonly string[]; seq: number }> = [];
  let seq = 0;
  let finish!: () => void;
  const checks = new AfterRunChecks(async (checkout, agents) => {
    started.push({ checkout, agents, seq: ++seq });
    if (started.length === 1) await new Promise<void>((r) => (finish = r));
  });
  checks.request('alice', '/a');
  checks.request('bob', '/a'); // ends before the first check started: shares it
  assert.equal(started.length, 0, 'not on the command\'s way back');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started.map((s) => s.agents), [['alice', 'bob']]);
  checks.request('carol', '/a'); // ends while the first check runs
  checks.request('dave', '/a');
  checks.request('erin', '/b'); // another checkout: not held up
  const done = checks.settled();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(started.map((s) => [s.checkout, s.agents]), [['/a', ['alice', 'bob']], ['/b', ['erin']]]);
  finish();
  await done;
  assert.deepEqual(started.map((s) => [s.checkout, s.agents]), [['/a', ['alice', 'bob']], ['/b', ['erin']], ['/a', ['carol', 'dave']]]);
});
