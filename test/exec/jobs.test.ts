// Background jobs against real processes: returns at once, output since the last read,
// one "ended" per job that ends by itself, job_kill and an agent's stop take the whole
// process group, output capped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { JobManager, formatJobRead, type JobInfo } from '../../src/core/exec/jobs';
import { ProcessRegistry } from '../../src/core/exec/process-group';
import { waitFor } from '../helpers/tmp';

const cwd = tmpdir();
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('a job returns at once; output comes in pieces; its end is announced once with the exit code', async () => {
  const jobs = new JobManager(new ProcessRegistry(), 100);
  const ended: JobInfo[] = [];
  jobs.onEnded((j) => ended.push(j));
  const started = Date.now();
  const j = await jobs.start('alice', 'echo first; read -t 1 x < /dev/zero; sleep 0.5; echo second; exit 3', { cwd });
  assert.ok(Date.now() - started < 1000, 'returns before the command ends');
  assert.equal(j.state, 'running');
  await waitFor(() => jobs.read('alice', j.id).output.includes('first') || undefined, 5000, 'first output');
  await waitFor(() => ended.length, 10_000, 'job end');
  const r = jobs.read('alice', j.id);
  assert.match(r.output, /second/);
  assert.doesNotMatch(r.output, /first/, 'only what came since the last read');
  assert.match(formatJobRead(r), /Job job-1 ended: exit code 3\./);
  assert.equal(formatJobRead(jobs.read('alice', j.id)).split('\n')[0], '(no new output)');
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(ended.length, 1);
  assert.equal(ended[0]!.exitCode, 3);
});

test('job_kill and the agent stopping take the whole group down, with no "ended" wake', async () => {
  const registry = new ProcessRegistry();
  const jobs = new JobManager(registry, 100);
  const ended: JobInfo[] = [];
  jobs.onEnded((j) => ended.push(j));
  const a = await jobs.start('alice', 'sleep 60 & echo $!; wait', { cwd });
  const b = await jobs.start('alice', 'sleep 60 & echo $!; wait', { cwd });
  const pidOf = async (id: string) => Number(await waitFor(() => jobs.read('alice', id).output.trim() || undefined, 5000, 'pid'));
  const pa = await pidOf(a.id);
  const pb = await pidOf(b.id);
  assert.throws(() => jobs.read('bob', a.id), /no background job "job-1" of yours/);
  const killed = await jobs.kill('alice', a.id);
  assert.equal(killed.state, 'killed');
  await waitFor(() => !alive(pa), 3000, 'grandchild of the killed job gone');
  assert.equal(await registry.killAll('alice'), 1, "the agent's stop kills its remaining job");
  await waitFor(() => !alive(pb), 3000, 'grandchild of the stopped job gone');
  assert.equal(ended.length, 0);
  assert.deepEqual(jobs.list('alice').map((j) => j.state), ['killed', 'killed']);
});

test('output between two reads is capped, head and tail kept', async () => {
  const jobs = new JobManager(new ProcessRegistry(), 100);
  const j = await jobs.start('alice', 'echo START; head -c 2000000 /dev/zero | tr "\\0" x; echo; echo END', { cwd });
  await waitFor(() => jobs.list('alice')[0]!.state !== 'running', 10_000, 'end');
  const r = jobs.read('alice', j.id);
  assert.ok(r.truncated);
  assert.ok(r.output.length < 40_000);
  assert.match(r.output, /^START/);
  assert.match(r.output, /END\n?$/);
});

test('too many running jobs are refused', async () => {
  const registry = new ProcessRegistry();
  const jobs = new JobManager(registry, 50);
  for (let i = 0; i < 8; i++) await jobs.start('alice', 'sleep 30', { cwd });
  await assert.rejects(jobs.start('alice', 'sleep 30', { cwd }), /already have 8 background jobs running/);
  await registry.killAll('alice');
});
