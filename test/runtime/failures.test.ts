import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { createModelClient } from '../../src/core/model';
import type { RuntimeOptions } from './harness';
import { fault, keyFingerprint, reply, shaped, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const exec = promisify(execFile);

async function processesWith(marker: string): Promise<number> {
  const { stdout } = await exec('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((l) => l.includes(marker) && !l.includes('ps -eo')).length;
}

test('force stop during a stalled stream aborts the request at once; tasks return to pending', async (t) => {
  const h = await harness(t);
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'stall' });
  h.api.script('lou', reply(toolUse('claim_task', { task_id: task.id })), shaped('never finishes', { stallAfter: 2 }));
  await h.rt.spawnTeammate({ name: 'lou', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.api.requests('lou').length === 2, 5000, 'second request');
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  await h.rt.stopTeammate('lou');
  assert.ok(Date.now() - t0 < 2000, `stop took ${Date.now() - t0} ms`);
  await waitFor(() => h.api.requests('lou')[1]!.disconnectedAt !== undefined, 2000, 'server saw the disconnect');
  assert.equal((await partsOf(h.rt).team.roster.get('lou'))?.status, 'shutdown');
  const t1 = await partsOf(h.rt).team.tasks.get(task.id);
  assert.deepEqual([t1?.status, t1?.owner], ['pending', '']);
});

test('force stop during a long bash kills its children (sleep 100 gone)', async (t) => {
  const h = await harness(t);
  const marker = `agent-teams-marker-${process.pid}-${Date.now()}`;
  h.api.script('max', reply(toolUse('bash', { command: `(sleep 100; echo ${marker}) & sleep 100 # ${marker}` })));
  await h.rt.spawnTeammate({ name: 'max', role: 'dev', prompt: 'Run it.' });
  await waitFor(async () => (await processesWith(marker)) > 0, 5000, 'bash started');
  await h.rt.stopTeammate('max');
  await waitFor(async () => (await processesWith(marker)) === 0, 3000, 'children gone');
  assert.equal((await partsOf(h.rt).team.roster.get('max'))?.status, 'shutdown');
});

test('529 then success: the teammate retries and carries on', async (t) => {
  const h = await harness(t);
  h.api.script('ned', fault.overloaded(), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ned', role: 'dev', prompt: 'Go.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ned'))?.status === 'idle', 5000);
  assert.deepEqual(h.api.requests('ned').map((r) => r.outcome), ['error:529', 'reply']);
  assert.ok(h.events.some((e) => e.type === 'activity' && e.agent === 'ned' && e.activity.kind === 'retrying'));
});

test('401 ends the phase with a clear error, no retry loop, key never shown', async (t) => {
  const h = await harness(t);
  h.api.script('ola', fault.auth());
  await h.rt.spawnTeammate({ name: 'ola', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.level === 'error' && e.agent === 'ola'), 5000, 'error notice');
  const notice = h.events.find((e) => e.type === 'notice' && e.level === 'error' && e.agent === 'ola');
  assert.match(JSON.stringify(notice), /401/);
  assert.doesNotMatch(JSON.stringify(h.events), /sk-test-secret/);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.api.requests('ola').length, 1);
  assert.equal((await partsOf(h.rt).team.roster.get('ola'))?.status, 'idle');
});

test('token budget: spent → paused with a notice, no further calls; raised → resumes', async (t) => {
  const h = await harness(t, { tokenBudget: 1 });
  h.api.setDefault(reply(toolUse('task_list', {})));
  await h.rt.spawnTeammate({ name: 'pat', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && /budget/.test(e.message)), 5000, 'budget notice');
  const calls = h.api.requests('pat').length;
  assert.equal(calls, 1, 'the call that spent the budget, then none');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.api.requests('pat').length, calls);
  assert.equal(h.rt.activity('pat').kind, 'paused');
  h.api.setDefault(reply(toolUse('idle', {})));
  h.rt.updateSettings({ tokenBudget: 0 });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('pat'))?.status === 'idle', 5000, 'resumed');
});

test('token budget: a stop that lands while the gate reads the roster still stops (no hang)', async (t) => {
  const h = await harness(t, { tokenBudget: 10 });
  await partsOf(h.rt).runner!.budget.record('lead', { content: [], stopReason: 'end_turn', usage: { input: 1000, output: 1000, cacheRead: 0, cacheWrite: 0 }, attempts: 1 });
  const stop = new AbortController();
  const gate = partsOf(h.rt).runner!.budget.gate('lead', stop.signal).then(() => 'passed', (e: Error) => e.name);
  stop.abort(); // the gate is still reading the roster
  const outcome = await Promise.race([gate, new Promise((r) => setTimeout(() => r('still waiting'), 3000))]);
  assert.equal(outcome, 'AbortError');
});

test('bash approval: ask → denied is an error result; deny policy refuses outright', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask' }, 'deny');
  h.api.script('quinn', reply(toolUse('bash', { command: 'echo hi > hi.txt' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'quinn', role: 'dev', prompt: 'Go.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('quinn'))?.status === 'idle', 5000);
  assert.deepEqual(h.bashAsks, ['echo hi > hi.txt']);
  assert.match(JSON.stringify(h.api.requests('quinn')[1]!.body.messages.at(-1)), /The user denied this command/);
});

test('bash approval: while the user has not answered, the teammate shows it is waiting for approval', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask' });
  let answer!: (d: 'allow' | 'deny') => void;
  await h.rt.dispose();
  // Answered by the test; a stop (the clean-up of a failed run) answers deny, as the real approvers do, so a failure ends the test instead of hanging it.
  await h.restart({ approver: { bash: (_a, _c, signal) => new Promise((r) => {
    answer = r;
    if (signal?.aborted) r('deny');
    signal?.addEventListener('abort', () => r('deny'));
  }) } });
  // The user is asked only once the agent shows it is waiting: never a prompt the tree does not mention, nor the reverse.
  h.api.script('uma', reply(toolUse('bash', { command: 'echo approved > ok.txt' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'uma', role: 'dev', prompt: 'Go.' });
  await waitFor(async () => h.rt.activity('uma').kind === 'waiting-approval', 5000, 'waiting for approval');
  assert.deepEqual(h.rt.activity('uma'), { kind: 'waiting-approval', what: 'bash `echo approved > ok.txt`' });
  answer('allow');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('uma'))?.status === 'idle', 5000, 'done');
  assert.equal(await readFile(join(h.root, 'ok.txt'), 'utf8'), 'approved\n');
});

test('bad tool input returns an error result to the model, the loop goes on', async (t) => {
  const h = await harness(t);
  h.api.script('rex',
    reply(toolUse('task_get', { task_id: 'seven' }), toolUse('read_file', { path: '../../etc/passwd' }), toolUse('no_such_tool', {}), toolUse('read_file', { path: 'x', limit: null })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'rex', role: 'dev', prompt: 'Go.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('rex'))?.status === 'idle', 5000);
  const results = JSON.stringify(h.api.requests('rex')[1]!.body.messages.at(-1));
  assert.match(results, /Invalid input for task_get/);
  assert.match(results, /outside|escapes|not inside/i);
  assert.match(results, /You have no tool named \\"no_such_tool\\"\. Your tools: /);
  assert.match(results, /x/);
});

test('stop lands at once even when it arrives while an idle teammate is checking for work (no lost wake)', async (t) => {
  // A long poll interval: a stop missed by the idle wait would take 5 s.
  const h = await harness(t, { idlePollSeconds: 5 });
  h.api.setDefault(() => reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'vic', role: 'dev', prompt: 'Wait for work.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('vic'))?.status === 'idle', 5000, 'vic idle');
  // The stop arrives exactly while the idle loop is between its checks (looking at the board),
  // not while it waits: the moment a wake used to be dropped.
  const tasks = partsOf(h.rt).team.tasks;
  const nextWorkFor = tasks.nextWorkFor.bind(tasks);
  let stopping: Promise<number> | undefined;
  tasks.nextWorkFor = async (name: string) => {
    if (!stopping) {
      const t0 = Date.now();
      stopping = h.rt.stopTeammate('vic').then(() => Date.now() - t0);
      return null; // nothing for vic: it goes back to waiting unless the stop's wake counts
    }
    return nextWorkFor(name);
  };
  // A new task file wakes vic into its checks (idle teammates wake on task files only).
  await h.rt.createTask({ subject: 'poke' });
  await waitFor(async () => stopping !== undefined, 5000, 'stop issued during the checks');
  const ms = await stopping!;
  assert.ok(ms < 2000, `stopped after ${ms} ms`);
});

test('a rejected key: the teammate takes no more work from the board; a new key reaches every running agent', async (t) => {
  const h = await harness(t);
  let key = 'sk-ant-wrong-key';
  const models: RuntimeOptions['models'] = (model, onStatus) =>
    createModelClient({ apiKey: key, baseURL: h.api.url, model, caching: true, onStatus, retry: { baseDelayMs: 20, maxDelayMs: 100, maxRetries: 3 } });
  await h.rt.dispose();
  await h.restart({ models });
  h.api.setDefault((r) => (r.keyFingerprint === keyFingerprint(key) && key === 'sk-ant-wrong-key' ? fault.auth() : reply(toolUse('idle', {}))));
  await h.rt.createTask({ subject: 'first' });
  await h.rt.spawnTeammate({ name: 'wes', role: 'dev', prompt: 'Take tasks.' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.agent === 'wes' && /401|rejected/i.test(e.message)), 5000, '401 notice');
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(h.api.requests('wes').length, 1, 'one rejected call: no claiming and failing again on the board');
  assert.equal((await partsOf(h.rt).team.tasks.get(1))?.status, 'pending');

  key = 'sk-ant-good-key';
  h.api.setDefault((r) => (/Task #1 was assigned to you automatically/.test(JSON.stringify(r.body.messages.at(-1))) ? reply(toolUse('task_update', { task_id: 1, status: 'completed' }), toolUse('idle', {})) : reply(toolUse('idle', {}))));
  h.rt.refreshModels();
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(1))?.status === 'completed', 5000, 'the task is done with the new key');
  assert.ok(h.api.requests('wes').slice(1).every((r) => r.keyFingerprint === keyFingerprint('sk-ant-good-key')), 'every later call used the new key');
  h.api.script('lead', 'Hello with the new key.');
  await h.rt.askLead('hi');
  assert.equal(h.api.requests('lead').at(-1)!.keyFingerprint, keyFingerprint('sk-ant-good-key'), 'the lead too');
});

test('a teammate whose loop crashes is retired: its task goes back to the board, no ghost stays idle', async (t) => {
  const h = await harness(t);
  h.api.script('gus', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'gus', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('gus'))?.status === 'idle', 5000, 'gus idle');
  // Its transcript can no longer be written (a folder took the file's place).
  const transcript = join(h.root, '.team', 'transcripts', 'gus.jsonl');
  await rm(transcript);
  await mkdir(transcript);
  // Past the append handle's re-check interval (50 ms), so the next append sees the change.
  await new Promise((r) => setTimeout(r, 120));
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'crash on me' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.agent === 'gus' && /crashed/.test(e.message)), 5000, 'crash notice');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('gus'))?.status === 'shutdown', 5000, 'gus retired');
  const after = await partsOf(h.rt).team.tasks.get(task.id);
  assert.deepEqual([after?.status, after?.owner], ['pending', '']);
  assert.equal(h.rt.activity('gus').kind, 'stopped');
});

test('after a failed call the teammate is idle with the error still in view', async (t) => {
  const h = await harness(t);
  h.api.script('hal', fault.modelNotFound('claude-nope'));
  await h.rt.spawnTeammate({ name: 'hal', role: 'dev', prompt: 'Go.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('hal'))?.status === 'idle', 5000, 'hal idle');
  await new Promise((r) => setTimeout(r, 200));
  const a = h.rt.activity('hal');
  assert.equal(a.kind, 'error');
  assert.match((a as { message: string }).message, /not found/);
});

test('a teammate whose calls failed while it held a task carries the task on once the model is fixed', async (t) => {
  const h = await harness(t, { model: 'claude-nope' });
  const task = await h.rt.createTask({ subject: 'long job' });
  h.api.setDefault((r) => {
    const last = JSON.stringify(r.body.messages.at(-1));
    if (/Resume your task #1/.test(last)) {
      return r.body.model === 'claude-nope' ? fault.modelNotFound('claude-nope') : reply(toolUse('task_update', { task_id: task.id, status: 'completed' }), toolUse('idle', {}));
    }
    return reply(toolUse('claim_task', { task_id: task.id }), toolUse('idle', {}));
  });
  // ivy claims the task, idles, and is woken to resume it: that call fails (no such model).
  await h.rt.spawnTeammate({ name: 'ivy', role: 'dev', prompt: 'Take the long job.' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.agent === 'ivy' && /not found/.test(e.message)), 5000, '404 notice');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ivy'))?.status === 'idle', 5000, 'ivy idle');
  assert.deepEqual([(await partsOf(h.rt).team.tasks.get(task.id))?.status, (await partsOf(h.rt).team.tasks.get(task.id))?.owner], ['in_progress', 'ivy']);

  // The user fixes the model setting: ivy takes her task up again without being messaged.
  h.rt.updateSettings({ model: 'claude-good' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(task.id))?.status === 'completed', 5000, 'the held task is carried on');
});

test('a task phase that hits maxRounds is not started over by itself; the lead is told once', async (t) => {
  const h = await harness(t, { maxRounds: 3 });
  h.api.setDefault((r) => (r.body.messages.length === 1 ? reply(toolUse('idle', {})) : reply(toolUse('task_list', {}))));
  await h.rt.spawnTeammate({ name: 'joy', role: 'dev', prompt: 'Wait for work.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('joy'))?.status === 'idle', 5000, 'joy idle');
  await h.rt.createTask({ subject: 'endless' });
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.agent === 'joy' && /maxRounds/.test(e.message)), 5000, 'maxRounds notice');
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(h.api.requests('joy').length, 1 + 3, 'the spawn call, then one task phase of 3 calls');
  const notices = (await partsOf(h.rt).team.mailbox.history('lead')).filter((m) => /maxRounds/.test(m.content));
  assert.equal(notices.length, 1);
});

test('a stopped teammate leaves no request pending; a cancelled lead turn leaves the lead idle', async (t) => {
  const h = await harness(t);
  h.api.script('kit', shaped('never finishes', { stallAfter: 1 }));
  await h.rt.spawnTeammate({ name: 'kit', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.api.requests('kit').length === 1, 5000, 'kit asking');
  const req = await h.rt.requestShutdown('kit');
  await h.rt.stopTeammate('kit');
  assert.equal((await partsOf(h.rt).team.requests.get(req.request_id))?.status, 'expired');

  h.api.script('lead', reply(toolUse('bash', { command: 'sleep 10' })));
  void h.rt.askLead('Wait a while.');
  await waitFor(() => h.rt.activity('lead').kind === 'tool', 5000, 'lead running bash');
  h.rt.cancelLeadTurn();
  await waitFor(() => h.rt.activity('lead').kind === 'idle', 3000, 'lead idle after the cancel');
});
