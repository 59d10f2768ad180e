// A foreground command that outlasts the time limit is not killed: it goes on as a background
// job, listed and announced like one, and what it printed so far comes back with the call
// (docs/tools.md, "Commands that run long"). Against real processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobManager, type JobInfo } from '../../src/core/exec/jobs';
import { ProcessRegistry } from '../../src/core/exec/process-group';
import { jobEndedText, ENDED_TAIL_LINES } from '../../src/core/runtime/job-wakes';
import { waitFor } from '../helpers/tmp';

const cwd = tmpdir();
const run = (jobs: JobManager, command: string, waitMs: number, signal = new AbortController().signal) =>
  jobs.runForeground('alice', command, { cwd, waitMs, maxOutputBytes: 30_000, signal });

test('a command that ends in time is a plain result: its output and exit code, no job listed or numbered', async () => {
  const jobs = new JobManager(new ProcessRegistry(), 100);
  const r = await run(jobs, 'echo hi; echo oops >&2; exit 4', 10_000);
  assert.ok('result' in r);
  assert.equal(r.result.exitCode, 4);
  assert.equal(r.result.timedOut, false);
  assert.match(r.result.output, /hi\noops/);
  assert.deepEqual(jobs.list(), []);
  const j = await jobs.start('alice', 'true', { cwd });
  assert.equal(j.id, 'job-1', 'a foreground command uses no job number');
});

test('past the limit it goes on as a job: output so far returned, listed as running, its end announced once with the rest', async () => {
  const jobs = new JobManager(new ProcessRegistry(), 100);
  const ended: JobInfo[] = [];
  jobs.onEnded((j) => ended.push(j));
  const changes: string[] = [];
  jobs.onChange((o) => changes.push(o));
  const t0 = Date.now();
  const r = await run(jobs, 'echo early; sleep 1.5; echo late; exit 2', 500);
  assert.ok(Date.now() - t0 < 1400, 'the call returns at the limit');
  assert.ok('job' in r);
  assert.equal(r.job.info.id, 'job-1');
  assert.match(r.job.output, /early/);
  assert.deepEqual(jobs.list('alice').map((j) => [j.id, j.state]), [['job-1', 'running']]);
  assert.ok(changes.length >= 1, 'the views hear of it');
  await waitFor(() => ended.length, 10_000, 'the job ends by itself');
  assert.equal(ended[0]!.exitCode, 2);
  const rest = jobs.read('alice', 'job-1');
  assert.match(rest.output, /late/);
  assert.doesNotMatch(rest.output, /early/, 'what the call returned is not repeated');
});

test('past the limit with the job slots full, the command is killed as before', async () => {
  const registry = new ProcessRegistry();
  const jobs = new JobManager(registry, 50);
  for (let i = 0; i < 8; i++) await jobs.start('alice', 'sleep 30', { cwd });
  const r = await run(jobs, 'echo started; sleep 30', 300);
  assert.ok('result' in r);
  assert.equal(r.result.timedOut, true);
  assert.match(r.result.output, /started/);
  assert.equal(jobs.list('alice').length, 8);
  await registry.killAll('alice');
});

test('the agent stopping before the limit kills it: aborted, never a job; a missing folder is a clear error', async () => {
  const registry = new ProcessRegistry();
  const jobs = new JobManager(registry, 50);
  const stop = new AbortController();
  const pending = run(jobs, 'sleep 30', 20_000, stop.signal);
  await new Promise((r) => setTimeout(r, 200));
  stop.abort();
  const r = await pending;
  assert.ok('result' in r);
  assert.equal(r.result.aborted, true);
  assert.deepEqual(jobs.list(), []);
  const viaRegistry = run(jobs, 'sleep 30', 20_000);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await registry.killAll('alice'), 1, 'a running foreground command is the agent\'s to stop');
  const r2 = await viaRegistry;
  assert.ok('result' in r2 && r2.result.aborted);
  const bad = await jobs.runForeground('alice', 'true', { cwd: join(cwd, 'no-such-folder-xyz'), waitMs: 5000, maxOutputBytes: 1000, signal: new AbortController().signal });
  assert.ok('result' in bad);
  assert.match(bad.result.error ?? '', /working directory does not exist/);
});

test("a job's end message carries what it printed since the last read, or its last lines", () => {
  const info: JobInfo = { id: 'job-3', owner: 'alice', command: 'npm test', state: 'exited', exitCode: 1, signal: null, startedAt: 0, endedAt: 1 };
  const short = jobEndedText(info, 'ok 1\nnot ok 2 - adds\n  expected 3, got 4\n');
  assert.match(short, /job-3 \(`npm test`\) ended with exit code 1\. What it printed since it was last read:\nok 1\nnot ok 2 - adds\n {2}expected 3, got 4$/);
  const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
  const cut = jobEndedText(info, long);
  assert.match(cut, /Its last lines \(all of its output: job_output\(job_id="job-3"\)\)/);
  assert.match(cut, /line 199$/);
  assert.doesNotMatch(cut, /line 100\n/);
  assert.equal(cut.split('\n').length - 1, ENDED_TAIL_LINES);
  assert.match(jobEndedText(info, ''), /printed nothing since it was last read/);
});
