// What the model reads (docs: README.md, "What the agents are told"): each test runs a
// scenario through the real SDK against the fake API and checks the words sent and, where
// words used to cost calls, how many calls were made.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, systemText, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

const lastMsg = (h: Harness, agent: string, i = -1) => JSON.stringify(h.api.requests(agent).at(i)?.body.messages.at(-1) ?? '');
const idle = (h: Harness, name: string) =>
  waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);
const run = promisify(execFile);
const settle = () => new Promise((r) => setTimeout(r, 500));

test('the lead is told how tasks go out, how to wait and that tool calls run in order; system and tools stay byte-identical within a turn', async (t) => {
  const h = await harness(t);
  h.api.script('lead', reply(toolUse('task_list', {})), 'Nothing on the board.');
  await h.rt.askLead('What is on the board?');
  const [a, b] = h.api.requests('lead');
  assert.ok(a && b, 'two requests in one turn');
  const system = systemText(a.body);
  assert.match(system, /an unowned task goes to whichever teammate is idle first/);
  assert.match(system, /To wait for teammates \(after spawning, messaging or asking them to shut down\), end your turn: what they send starts your next one/);
  assert.match(system, /Several tool calls in one reply run in order/);
  // The rules above plus the merge queue's two sentences and the worktree note (docs/file-formats.md).
  assert.ok(system.length < 2100, `lead system prompt stays short (${system.length}): ${system}`);
  assert.equal(JSON.stringify(b.body.system), JSON.stringify(a.body.system));
  assert.equal(JSON.stringify(b.body.tools), JSON.stringify(a.body.tools));
});

test('tool descriptions: mail arrives by itself (no read_inbox to poll by default); broadcast is offered once, in send_message; worktrees are explained once', async (t) => {
  const h = await harness(t);
  h.api.script('lead', 'Hi.');
  await h.rt.askLead('Hi.');
  const tools = h.api.requests('lead')[0]!.body.tools as Array<{ name: string; description: string; input_schema: unknown }>;
  const d = (n: string) => JSON.stringify(tools.find((x) => x.name === n));
  assert.ok(!tools.some((x) => x.name === 'read_inbox'), 'read_inbox is opt-in');
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.system), /Mail arrives by itself in <team-mail> tags, between your tool calls or as a new turn/);
  // Broadcast is offered once: send_message's msg_type (there is no broadcast tool to confuse it with).
  assert.ok(!tools.some((x) => x.name === 'broadcast'), 'no second way to broadcast');
  assert.match(d('send_message'), /\\"broadcast\\": to every teammate except you/);
  // A worktree teammate's branch: spawn_teammate says when to isolate; the system prompt, once, how its work lands.
  assert.match(d('spawn_teammate'), /\\"worktree\\": its own branch, for parallel edits of the same files/);
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.system), /its work reaches you only as commits there.*Land a branch with queue_merge/);
  assert.match(d('task_create'), /owner.*Reserve it for this teammate \(an existing one, or one you spawn in the same reply\)/);
});

test('send_message with msg_type broadcast reaches every teammate; a model that calls a broadcast tool is told its tools', async (t) => {
  const h = await harness(t);
  h.api.script('ann', reply(toolUse('idle', {})), reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'r', prompt: 'Wait.' });
  await idle(h, 'ann');
  h.api.script('lead',
    reply(toolUse('send_message', { to: 'nobody-in-particular', content: 'one', msg_type: 'broadcast' })),
    reply(toolUse('broadcast', { content: 'two' })),
    reply(toolUse('send_message', { to: 'ann', content: 'two', msg_type: 'broadcast' })),
    'Done.');
  await h.rt.askLead('Tell everyone twice.');
  const results = h.api.requests('lead').slice(1, 4).map((r) => JSON.stringify(r.body.messages.at(-1)));
  assert.match(results[0]!, /Broadcast to ann\./);
  assert.match(results[1]!, /You have no tool named \\"broadcast\\"\. Your tools: .*send_message/);
  assert.match(results[2]!, /Broadcast to ann\./);
  const got = (await partsOf(h.rt).team.mailbox.history('ann')).filter((m) => m.from === 'lead');
  assert.deepEqual(got.map((m) => [m.type, m.content]), [['broadcast', 'one'], ['broadcast', 'two']]);
});

test('a send says whether the recipient was idle (woken), working, or shut down', async (t) => {
  const h = await harness(t);
  h.api.script('ida', reply(toolUse('idle', {})), reply(toolUse('bash', { command: 'sleep 1.5' })), reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ida', role: 'r', prompt: 'Wait.' });
  await idle(h, 'ida');
  h.api.script('lead', reply(toolUse('send_message', { to: 'ida', content: 'sleep a bit' })), 'ok');
  await h.rt.askLead('Wake ida.');
  assert.match(lastMsg(h, 'lead'), /Sent to ida \(it was idle: woken now\)/);
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ida'))?.status === 'working', 5000, 'ida working');
  h.api.script('lead', reply(toolUse('send_message', { to: 'ida', content: 'and then stop' })), 'ok');
  await h.rt.askLead('Tell ida more.');
  assert.match(lastMsg(h, 'lead'), /Sent to ida \(it is working: it reads this between its tool calls\)/);
  await idle(h, 'ida');
  await h.rt.stopTeammate('ida');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ida'))?.status === 'shutdown', 5000, 'ida stopped');
  h.api.script('lead', reply(toolUse('send_message', { to: 'ida', content: 'hello?' })), 'ok');
  await h.rt.askLead('Try ida again.');
  assert.match(lastMsg(h, 'lead'), /Not sent: ida has shut down and reads no mail \(spawn_teammate starts it again\)/);
});

test('auto-claim says what happened; a task created with an owner goes to that teammate, woken for it, and to nobody else', async (t) => {
  const h = await harness(t);
  for (const n of ['amy', 'bo']) {
    h.api.script(n, reply(toolUse('idle', {})));
    await h.rt.spawnTeammate({ name: n, role: 'dev', prompt: 'Wait for work.' });
    await idle(h, n);
  }
  h.api.script('bo', reply(toolUse('task_update', { task_id: 1, status: 'completed' }), toolUse('idle', {})));
  h.api.script('lead', reply(toolUse('task_create', { subject: 'run the tests', owner: 'bo' })), 'Reserved.');
  await h.rt.askLead('Give bo the tests.');
  assert.match(lastMsg(h, 'lead'), /Created #1 \[pending\] owner=bo run the tests/);
  await waitFor(() => h.api.requests('bo').length >= 2, 8000, 'bo woken for its task');
  assert.match(lastMsg(h, 'bo', 1), /Task #1 was reserved for you by name on the board and is now yours: run the tests/);
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(1))?.status === 'completed', 8000, 'task 1 done');
  await idle(h, 'bo');
  await settle();
  assert.equal(h.api.requests('amy').length, 1, 'amy was not woken for bo\'s task');
  // An unowned task goes to the first idle teammate, told that it was assigned, not that it claimed it.
  h.api.setDefault(reply(toolUse('task_update', { task_id: 2, status: 'completed' }), toolUse('idle', {})));
  await h.rt.createTask({ subject: 'write the docs' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(2))?.status === 'completed', 8000, 'task 2 done');
  const woken = ['amy', 'bo'].filter((n) => /Task #2 was assigned to you automatically because you were idle and it became unblocked: write the docs/.test(
    h.api.requests(n).map((r) => JSON.stringify(r.body.messages.at(-1))).join('\n')));
  assert.equal(woken.length, 1, 'exactly one teammate got task 2');
});

test('task_create adds several tasks in one call, later ones blocked by earlier ones by ref; a bad ref adds nothing', async (t) => {
  const h = await harness(t);
  h.api.script('lead',
    reply(toolUse('task_create', { tasks: [
      { ref: 'code', subject: 'write slugify.js' },
      { ref: 'tests', subject: 'write tests', blockedBy: ['code'] },
      { subject: 'run tests', blockedBy: ['code', 'tests'], description: 'npm test' },
    ] })),
    reply(toolUse('task_create', { tasks: [{ subject: 'x' }, { subject: 'y', blockedBy: ['nope'] }] })),
    reply(toolUse('task_create', { subject: 'single form', blockedBy: [1] })),
    'Planned.');
  await h.rt.askLead('Plan it.');
  assert.equal(h.api.requests('lead').length, 4, 'one call per task_create, no second round for ids');
  const tasks = await partsOf(h.rt).team.tasks.list();
  assert.deepEqual(tasks.map((t) => [t.id, t.subject, t.blockedBy]), [
    [1, 'write slugify.js', []], [2, 'write tests', [1]], [3, 'run tests', [1, 2]], [4, 'single form', [1]],
  ]);
  assert.match(JSON.stringify(h.api.requests('lead')[2]!.body.messages.at(-1)), /blockedBy: \\"nope\\" names no task created earlier in this call/);
});

test('an approved shutdown wakes the idle lead once it was the last it asked for and the teammate has stopped; a rejected one wakes it at once', async (t) => {
  const h = await harness(t);
  h.api.setDefault((r) => {
    const m = /type=\\"shutdown_request\\" request_id=\\"([^"\\]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
    if (!m) return reply(toolUse('idle', {}));
    const approve = r.agent === 'yes';
    return reply(toolUse('shutdown_response', { request_id: m[1], approve, reason: approve ? 'done' : 'still busy' }));
  });
  for (const n of ['yes', 'no']) {
    await h.rt.spawnTeammate({ name: n, role: 'r', prompt: 'Wait.' });
    await idle(h, n);
  }
  h.api.script('lead', reply(toolUse('shutdown_request', { teammate: 'yes' })), 'Asked.', 'yes has shut down.');
  await h.rt.askLead('Shut yes down.');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('yes'))?.status === 'shutdown', 8000, 'yes shut down');
  await waitFor(() => h.api.requests('lead').length >= 3, 8000, 'lead woken by the last answer');
  assert.match(lastMsg(h, 'lead'), /Every shutdown you requested has been answered.*type=\\"shutdown_response\\".*approve=\\"true\\"/);
  assert.ok(h.events.some((e) => e.type === 'notice' && /yes shut down/.test(e.message)), 'the user is shown it');
  await settle();
  assert.equal(h.api.requests('lead').length, 3, 'woken once');
  // A refusal is a question for the lead: it wakes it.
  h.api.script('lead', reply(toolUse('shutdown_request', { teammate: 'no' })), 'Asked.', 'no keeps working.');
  await h.rt.askLead('Shut no down.');
  await waitFor(() => h.api.requests('lead').length >= 6, 8000, 'lead woken by the refusal');
  assert.match(lastMsg(h, 'lead'), /approve=\\"false\\".*still busy/);
});

test('team state stays out of git: git status shows the user\'s files only, and a .gitignore the user put in .team is kept', async (t) => {
  const h = await harness(t);
  const git = (...args: string[]) => run('git', args, { cwd: h.root }).then((r) => r.stdout);
  await git('init', '-q');
  await writeFile(join(h.root, 'app.js'), 'x\n');
  await h.rt.createTask({ subject: 'a task' });
  await userSends(h.rt, 'lead', 'hello');
  h.api.script('lead', 'Hi.');
  await h.rt.askLead('Hi.');
  assert.equal(await git('status', '--porcelain', '--untracked-files=all'), '?? app.js\n');
  await git('add', '-A');
  assert.equal(await git('diff', '--cached', '--name-only'), 'app.js\n');
  // The user's own .gitignore in .team is not replaced.
  await writeFile(join(h.root, '.team', '.gitignore'), 'mine\n');
  await h.rt.dispose();
  await h.restart();
  assert.equal(await readFile(join(h.root, '.team', '.gitignore'), 'utf8'), 'mine\n');
});
