// The bash parser (mvdan-sh, ~100 ms to load) loads and parses in its own worker thread,
// so the first rule that meets shell syntax does not stall the host's loop
// (docs/permissions.md). This file runs in its own process: its first decision is cold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decideBash } from '../../src/core/permissions/decide';
import { analyzeShell, stopShellParser } from '../../src/core/permissions/shell-parser';

/** The largest gap between ticks of a 2 ms interval while `work` runs, and how long it ran. */
async function loopGaps(work: () => Promise<unknown>): Promise<{ maxGap: number; ms: number; ticks: number }> {
  let last = performance.now();
  let maxGap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
  }, 2);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  maxGap = Math.max(maxGap, performance.now() - last);
  return { maxGap, ms, ticks };
}

test('the first decision that needs the parser leaves the host loop running while it loads', async (t) => {
  // What loading the parser costs a thread, measured in a separate process on this machine now.
  const { stdout } = await promisify(execFile)(process.execPath, ['-e',
    "const t=performance.now();require('mvdan-sh');process.stdout.write(String(performance.now()-t))"], { cwd: __dirname });
  const loadMs = Number(stdout);
  const r = await loopGaps(async () => {
    const d = await decideBash({ allow: ['Bash(npm test:*)'] }, 'npm test; rm -rf ~', 'ask');
    assert.equal(d.verdict, 'ask');
    assert.match(d.reason, /`rm -rf ~` is not allowed/);
  });
  const msg = `first decision ${r.ms.toFixed(0)} ms, longest loop gap ${r.maxGap.toFixed(0)} ms, ${r.ticks} ticks; loading the parser takes ${loadMs.toFixed(0)} ms`;
  t.diagnostic(msg);
  // Loaded on the host's loop (the old way), the loop stood still for the whole decision.
  assert.ok(r.maxGap < r.ms / 2, msg);
  assert.ok(r.maxGap < Math.max(loadMs, 40), msg);
  // Steady state: a parsed command is answered quickly, and decisions stay the same.
  assert.equal((await decideBash({ allow: ['Bash(npm test:*)'] }, 'npm test 2>&1 | tee x', 'ask')).verdict, 'ask');
  assert.equal((await decideBash({ allow: ['Bash(npm test:*)'] }, 'npm test -- "a;b" 2>&1', 'ask')).verdict, 'allow');
});

test('a parse that takes too long is given up (asked about), and the next one gets a fresh parser', async () => {
  await stopShellParser(); // cold again: loading alone takes far longer than 1 ms
  const slow = await analyzeShell('echo "$(ls)"', 1);
  assert.match(slow.error ?? '', /could not be parsed \(it took over 0 s\)/);
  assert.deepEqual(slow.parts, []);
  const d = await decideBash({ allow: ['Bash(echo:*)'] }, 'echo "$(ls)"', 'allow');
  assert.equal(d.verdict, 'allow', 'fallback allow with no deny or ask rule');
  const again = await analyzeShell('echo "$(ls)"');
  assert.deepEqual(again.parts, [['echo', '\u0000'], ['ls']]);
  assert.match(again.hazards.join(), /command substitution/);
  // Many questions in flight at once each get their own answer.
  const many = await Promise.all(Array.from({ length: 50 }, (_, i) => analyzeShell(`echo ${i} && rm "f${i}"`)));
  many.forEach((a, i) => assert.deepEqual(a.parts, [['echo', String(i)], ['rm', `f${i}`]]));
});
