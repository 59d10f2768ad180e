import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { Tenancy } from '../../src/core/runtime/tenancy';
import { reply, shaped, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, modelsFor, startSession, TEST_SETTINGS } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

test('a crashed host (kill -9) is replaced: the new runtime resumes the working teammate', async (t) => {
  const h = await harness(t);
  h.api.script('sam',
    reply(toolUse('write_file', { path: 'a.txt', content: 'one' })),
    shaped('stalls forever', { stallAfter: 1 }),
  );
  const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'runtime-host.js'), h.root, h.api.url, 'sam', 'Write a.txt then b.txt.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  await waitFor(() => h.api.requests('sam').length === 2, 10_000, 'second request in the child');
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  assert.equal((await partsOf(h.rt).team.roster.get('sam'))?.status, 'working');
  h.api.script('sam', reply(toolUse('write_file', { path: 'b.txt', content: 'two' })), reply(toolUse('idle', {})));
  await h.rt.dispose();
  await h.restart();
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('sam'))?.status === 'idle', 5000, 'resumed and idle');
  assert.equal(await readFile(join(h.root, 'b.txt'), 'utf8'), 'two');
  // The resumed conversation carries what happened before the crash.
  const resumed = JSON.stringify(h.api.requests('sam')[2]!.body.messages);
  assert.match(resumed, /Write a.txt then b.txt/);
  assert.match(resumed, /Created a.txt/);
  assert.equal((await partsOf(h.rt).team.roster.get('sam'))?.host?.id, h.rt.hostId);
});

test('two hosts never run the same teammate: the lease is respected', async (t) => {
  const h = await harness(t);
  h.api.script('tia', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'tia', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('tia'))?.status === 'idle', 5000);
  const other = await startSession({ root: h.root, settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'deny' } });
  t.after(() => other.dispose());
  assert.equal(other.activity('tia').kind, 'remote');
  await assert.rejects(other.spawnTeammate({ name: 'tia', role: 'dev', prompt: 'x' }), /run by another window/);
  await assert.rejects(other.stopTeammate('tia'), /run by another window/);
  // Mail sent from the other host still reaches tia (run by the first host).
  const before = h.api.requests('tia').length;
  h.api.script('tia', reply(toolUse('idle', {})));
  await userSends(other, 'tia', 'hello from window two');
  await waitFor(() => h.api.requests('tia').length > before, 3000, 'tia woken');
  assert.match(JSON.stringify(h.api.requests('tia').at(-1)!.body.messages), /hello from window two/);
  await other.dispose(); // before the harness removes the folder
});

test('compaction keeps identity, open tasks and pending requests', async (t) => {
  const h = await harness(t, { compactAtTokens: 3000 });
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'big refactor' });
  const big = 'x'.repeat(6000);
  h.api.script('uma',
    reply(toolUse('claim_task', { task_id: task.id })),
    reply(toolUse('write_file', { path: 'big.txt', content: big })),
    reply(toolUse('read_file', { path: 'big.txt' })),
    'Summary: claimed the refactor, wrote big.txt.',
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'uma', role: 'refactorer', prompt: 'Do the refactor.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('uma'))?.status === 'idle', 8000);
  const reqs = h.api.requests('uma');
  const summaryCall = reqs.find((r) => /summarising your own earlier work/.test(JSON.stringify(r.body.system)));
  assert.ok(summaryCall, 'a summary request was made');
  const after = reqs[reqs.indexOf(summaryCall!) + 1]!;
  assert.equal(after.body.messages.length, 1);
  const text = JSON.stringify(after.body.messages[0]);
  assert.match(text, /<identity>You are uma, role: refactorer/);
  assert.match(text, /Summary: claimed the refactor/);
  assert.match(text, new RegExp(`#${task.id} \\[in_progress\\] owner=uma big refactor`));
  // Identity also stays in the unchanged system prompt.
  assert.match(JSON.stringify(after.body.system), /You are uma/);
});

test('a roster edited to give a teammate a folder outside its own worktree is not resumed there', async (t) => {
  const h = await harness(t);
  h.api.script('ivy', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ivy', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ivy'))?.status === 'idle', 5000, 'ivy idle');
  await h.rt.dispose();
  await partsOf(h.rt).team.roster.patch('ivy', { worktree: tmpdir() });
  const calls = h.api.requests('ivy').length;
  await h.restart();
  const notice = h.events.find((e) => e.type === 'notice' && e.agent === 'ivy' && e.level === 'error');
  assert.match((notice as { message: string } | undefined)?.message ?? '', /not resumed: its working folder .* is not its own worktree/);
  assert.equal((await partsOf(h.rt).team.roster.get('ivy'))?.status, 'shutdown');
  await userSends(h.rt, 'ivy', 'read ~/.bashrc').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.api.requests('ivy').length, calls, 'no model call rooted outside');
});

test('two hosts starting together over one roster: exactly one runs each teammate', async (t) => {
  const h = await harness(t);
  h.api.script('zed', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'zed', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('zed'))?.status === 'idle', 5000, 'zed idle');
  await h.rt.dispose(); // a reload: zed stays idle in the roster, its lease given up
  const start = () => startSession({ root: h.root, settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'deny' } });
  const [a, b] = await Promise.all([start(), start()]);
  t.after(() => Promise.all([a.dispose(), b.dispose()]));
  assert.deepEqual([a.activity('zed').kind, b.activity('zed').kind].filter((k) => k === 'remote').length, 1, 'one runs it, the other shows it as remote');
  const before = h.api.requests('zed').length;
  h.api.script('zed', reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await userSends(a, 'zed', 'one message');
  await waitFor(() => h.api.requests('zed').length > before, 3000, 'zed woken');
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(h.api.requests('zed').length, before + 1, 'one model call for one message');
  await Promise.all([a.dispose(), b.dispose()]); // before the harness removes the folder
});

test('a host whose lease was taken over (it was frozen) stops running the teammate', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  await h.restart({ heartbeatMs: 100 });
  h.api.script('kai', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'kai', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('kai'))?.status === 'idle', 5000, 'kai idle');
  // Another window decided our lease was stale and took kai.
  await partsOf(h.rt).team.roster.patch('kai', { host: { id: 'window-2', pid: process.pid, heartbeat_at: Date.now() / 1000 + 60, hostname: 'elsewhere' } });
  await waitFor(async () => h.rt.activity('kai').kind === 'remote', 3000, 'kai yielded');
  assert.ok(h.events.some((e) => e.type === 'notice' && /kai is now run by another window \(host window-2\)/.test(e.message)));
  const calls = h.api.requests('kai').length;
  await userSends(h.rt, 'kai', 'who runs you?');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(h.api.requests('kai').length, calls, 'this host makes no model call for kai any more');
  assert.equal((await partsOf(h.rt).team.roster.get('kai'))?.host?.id, 'window-2', 'and leaves its record alone');
});

test('one lead per workspace: a second host passes what it is asked to the lead, and takes the lead over when that host goes', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  // The first host renews every 200 ms; the second deems a lease stale after 3 × 1 s, and
  // looks for a lead to adopt every second: margins a loaded machine does not break.
  await h.restart({ heartbeatMs: 200 });
  const second = await startSession({ root: h.root, settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'deny' }, heartbeatMs: 1000 });
  t.after(() => second.dispose());
  const notices: string[] = [];
  second.onEvent((e) => { if (e.type === 'notice') notices.push(e.message); });
  assert.equal(second.activity('lead').kind, 'remote');
  assert.notEqual(h.rt.activity('lead').kind, 'remote');

  h.api.script('lead', 'Answered once.');
  await second.askLead('What is the plan?');
  assert.match(notices.join('\n'), /The lead runs in another window .*: your words went to its inbox/);
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'the first host\'s lead answered');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.api.requests('lead').length, 1, 'one lead call for one message, not one per host');
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.messages), /What is the plan\?/);

  // The first host goes (window closed): the second takes the lead over with its conversation.
  await h.rt.dispose();
  await waitFor(async () => second.activity('lead').kind !== 'remote', 5000, 'lead adopted');
  h.api.script('lead', 'Still here.');
  await second.askLead('Are you still there?');
  const last = JSON.stringify(h.api.requests('lead').at(-1)!.body.messages);
  assert.match(last, /What is the plan\?[\s\S]*Answered once\.[\s\S]*Are you still there\?/, 'the conversation continues');
  await second.dispose(); // before the harness removes the folder
});

test('after a reload the lead carries on with the turn it was in; a turn the user stopped stays stopped', async (t) => {
  const h = await harness(t);
  h.api.script('lead', shaped('never finishes', { stallAfter: 1 }));
  void h.rt.askLead('Plan the release.');
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'first lead request');
  // The window reloads mid-turn: a new host picks the lead up and asks the model again.
  await h.rt.dispose();
  h.api.script('lead', 'Release plan: ship on Friday.');
  await h.restart();
  await waitFor(() => h.api.requests('lead').length === 2, 5000, 'the turn carried on');
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages), /Plan the release\./);
  await waitFor(() => h.api.requests('lead')[1]!.outcome === 'reply', 5000);

  // Now a turn the user stops: after another reload nothing is asked on its behalf.
  h.api.script('lead', shaped('never finishes', { stallAfter: 1 }));
  void h.rt.askLead('Draft the notes.');
  await waitFor(() => h.api.requests('lead').length === 3, 5000, 'third lead request');
  h.rt.cancelLeadTurn();
  await waitFor(() => h.api.requests('lead')[2]!.disconnectedAt !== undefined, 5000, 'request dropped');
  await h.rt.dispose();
  await h.restart();
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(h.api.requests('lead').length, 3, 'no request for the stopped turn');
  // The next question is answered, with the stop on record.
  h.api.script('lead', 'Notes drafted.');
  await h.rt.askLead('Draft the notes after all.');
  assert.match(JSON.stringify(h.api.requests('lead')[3]!.body.messages), /The user stopped this turn/);
});

test('a teammate another host spawns later is shown as remote here, and taken over when that host goes', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  await h.restart({ heartbeatMs: 100 });
  const other = await startSession({ root: h.root, settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'deny' }, heartbeatMs: 100 });
  t.after(() => other.dispose());
  h.api.script('dave', reply(toolUse('idle', {})));
  await other.spawnTeammate({ name: 'dave', role: 'coder', prompt: 'Wait.' });
  await waitFor(() => h.rt.activity('dave').kind === 'remote', 3000, 'dave shown as remote here');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('dave'))?.status === 'idle', 3000, 'dave idle');
  // The other host goes away; this one runs dave from now on, and mail reaches him here.
  await other.dispose();
  await waitFor(() => h.rt.activity('dave').kind === 'idle', 3000, 'dave taken over');
  assert.equal((await partsOf(h.rt).team.roster.get('dave'))?.host?.id, h.rt.hostId);
  const before = h.api.requests('dave').length;
  h.api.script('dave', reply(toolUse('idle', {})));
  await userSends(h.rt, 'dave', 'are you there?');
  await waitFor(() => h.api.requests('dave').length > before, 3000, 'dave answered here');
});

test('slow heartbeats (a contended roster lock) do not overlap: an orphan is adopted once, and answers each mail once', async (t) => {
  const h = await harness(t);
  // dave is run by another host whose lease is about to go stale.
  await partsOf(h.rt).team.spawnMember('dave', 'coder', {
    worktree: null, branch: null, current_task: null,
    host: { id: 'ghost', pid: 1, heartbeat_at: Date.now() / 1000 + 0.3, hostname: 'elsewhere' },
  });
  await partsOf(h.rt).team.roster.patch('dave', { status: 'idle' });
  await h.rt.dispose();
  await h.restart({ heartbeatMs: 30 });
  assert.equal(h.rt.activity('dave').kind, 'remote');
  // Another process holds the roster lock a while: heartbeats pile up behind it.
  const lock = `${partsOf(h.rt).team.paths.config}.lock`;
  await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other' }), { flag: 'wx' });
  h.api.setDefault(reply(toolUse('idle', {})));
  await userSends(h.rt, 'dave', 'hello dave');
  await new Promise((r) => setTimeout(r, 800));
  await unlink(lock);
  await waitFor(() => h.api.requests('dave').length >= 1, 5000, 'dave adopted');
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(h.api.requests('dave').length, 1, 'one dave answered the first mail');
  await userSends(h.rt, 'dave', 'second mail');
  await waitFor(() => h.api.requests('dave').length >= 2, 5000, 'second answer');
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(h.api.requests('dave').length, 2, 'one call per mail');
});

test('mail that wakes the lead while a host is still starting carries the interrupted turn on once, not twice', async (t) => {
  const h = await harness(t);
  h.api.script('lead', shaped('never finishes', { stallAfter: 1 }));
  void h.rt.askLead('Plan the release.');
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'first lead request');
  await h.rt.dispose();
  // A slow start (many teammates to resume): the mail below lands before the turn is resumed.
  const proto = Tenancy.prototype as unknown as { resumeTeammates: () => Promise<void> };
  const resumeTeammates = proto.resumeTeammates;
  proto.resumeTeammates = async function (this: unknown) {
    await new Promise((r) => setTimeout(r, 800));
    return resumeTeammates.call(this);
  };
  t.after(() => { proto.resumeTeammates = resumeTeammates; });
  h.api.script('lead', shaped('Answer one.', { delayMs: 150 }), 'Answer two.');
  const restarting = h.restart();
  await new Promise((r) => setTimeout(r, 300));
  await partsOf(h.rt).team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: 'Also: a question by mail.' });
  await restarting;
  await new Promise((r) => setTimeout(r, 2000));
  const reqs = h.api.requests('lead');
  assert.equal(reqs.length, 2, 'one request carrying the turn on, with the mail');
  assert.match(JSON.stringify(reqs[1]!.body.messages), /Plan the release\..*a question by mail/);
});

test('a host that loses the lead to another leaves its turn to be carried on (no "user stopped" note)', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  await h.restart({ heartbeatMs: 100 });
  h.api.script('lead', shaped('never finishes', { stallAfter: 1 }));
  void h.rt.askLead('Plan the release.');
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'first lead request');
  // Another host took the lead over (this one looked frozen to it).
  await partsOf(h.rt).team.roster.update((c) => {
    (c as unknown as { lead: { host: unknown } }).lead.host = { id: 'other-host', pid: process.pid, heartbeat_at: Date.now() / 1000, hostname: 'elsewhere' };
  });
  await waitFor(() => h.rt.activity('lead').kind === 'remote', 3000, 'lead handed over');
  await new Promise((r) => setTimeout(r, 300));
  assert.doesNotMatch(await readFile(partsOf(h.rt).team.paths.transcript('lead'), 'utf8'), /The user stopped this turn/);
});

test('resume honours maxTeammates: of 6 teammates on the roster, 2 are run and the rest stay as they were', async (t) => {
  const h = await harness(t, { maxTeammates: 2 });
  await h.rt.dispose();
  for (const name of ['ana', 'ben', 'cai', 'dov', 'eli', 'fay']) {
    await partsOf(h.rt).team.spawnMember(name, 'dev');
    await partsOf(h.rt).team.roster.patch(name, { status: 'idle' });
  }
  const rt = await h.restart();
  const held = () => h.events.filter((e) => e.type === 'notice' && /is not resumed: 2 teammates already run/.test(e.message)).length;
  await waitFor(() => held() === 4, 5000, 'four held back');
  const members = await partsOf(rt).team.roster.list();
  assert.equal(members.filter((m) => m.host?.id === rt.hostId).length, 2, 'two leases taken');
  assert.equal(members.filter((m) => m.status === 'idle').length, 6, 'nobody retired');
});
