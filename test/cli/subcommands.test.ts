// The scriptable subcommands as a script sees them: exit codes, usage errors, --json output,
// and changes that an engine instance in another process (this test) observes at once.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { run } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/io';
import { displayWidth } from '../../src/cli/format';
import { Team, type TeamChange } from '../../src/core/team/team';
import { tempDir, waitFor } from '../helpers/tmp';
import { runCli } from './cli-proc';

test('usage errors exit 2 with the usage line; failed operations exit 1', async (t) => {
  const root = await tempDir(t);
  const usage: string[][] = [
    ['frobnicate'], ['task'], ['task', 'explode'], ['task', 'add'], ['task', 'done'], ['task', 'done', 'abc'],
    ['task', 'done', '1', '2'], ['task', 'add', 'x', '--blocked-by', '1,b'], ['tasks', '--bogus'], ['tasks', 'extra'],
    ['send'], ['send', 'Bad Name', 'hi'], ['send', 'bob'], ['inbox', '../etc'], ['reject', 'req_x'],
    ['--root'], ['--root', `${root}/missing`, 'tasks'], ['--bash', 'sometimes'], ['--max-rounds', '-3'], ['team', '--model', 'x'],
  ];
  const check = async (args: string[]) => {
    const r = await runCli(args[0] === '--root' ? args : ['--root', root, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')} → ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /^agent-teams: .+\nusage: agent-teams/, args.join(' '));
    assert.equal(r.stdout, '');
  };
  // A few at a time: twenty node processes at once would only measure the machine.
  for (let i = 0; i < usage.length; i += 4) await Promise.all(usage.slice(i, i + 4).map(check));
  const failures: [string[], RegExp][] = [
    [['task', 'done', '99'], /task 99 not found/],
    [['send', 'bob', 'hi'], /unknown recipient "bob"/],
    [['approve', 'req_nope'], /unknown request_id "req_nope"/],
    [['task', 'add', 'x', '--blocked-by', '7'], /task 7 not found/],
  ];
  for (const [args, re] of failures) {
    const r = await runCli(['--root', root, ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, re);
  }
});

test('--help, help <command>, --version', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  for (const c of ['team', 'tasks', 'task add', 'task done', 'send', 'inbox']) assert.match(help.stdout, new RegExp(`agent-teams ${c} `));
  assert.match(help.stdout, /Exit codes: 0 ok, 1 .*, 2 usage error/);
  // The docs/*.md help names are found where the build is (the .vsix ships docs/ too).
  const docs = /The documents named here \(docs\/<name>\.md\) are in (.+)/.exec(help.stdout)?.[1];
  assert.ok(docs, help.stdout);
  assert.match(await readFile(join(docs, 'security.md'), 'utf8'), /^# /);
  const one = await runCli(['help', 'task', 'add']);
  assert.match(one.stdout, /^usage: agent-teams task add <subject> \[--description <text>\] \[--blocked-by <id,id…>\]/);
  assert.match((await runCli(['inbox', '--help'])).stdout, /usage: agent-teams inbox \[name\]/);
  // A first headless run needs more than a usage line: each option, what is asked, exit codes, an example.
  const run = (await runCli(['run', '--help'])).stdout;
  for (const o of ['--prompt-file <file>', '--with <name>[:<agent_type>]', '--timeout <s>', '--output-format <f>', 'Exit codes: 0', 'Nothing is asked', 'agent-teams run "']) assert.ok(run.includes(o), `run --help names ${o}:\n${run}`);
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
});

/** Runs the CLI and returns how long after its exit `team` noticed a change of kind `what`. */
async function observed(team: Team, what: TeamChange, args: string[]): Promise<{ out: string; lagMs: number }> {
  let seenAt = 0;
  const sub = await team.subscribe((w) => {
    if (w === what && !seenAt) seenAt = performance.now();
  });
  try {
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    await waitFor(() => seenAt > 0, 1000, `${what} change seen`);
    // Usually negative: the watcher fires on the write, before the child has even exited.
    return { out: r.stdout, lagMs: seenAt - r.exitAt };
  } finally {
    sub.dispose();
  }
}

test('subcommands change state that another process observes within 100 ms', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('alice', 'writer');
  const at = ['--root', root];

  const add = await observed(team, 'tasks', [...at, 'task', 'add', 'Write', 'the', 'docs', '--description', 'all of them', '--json']);
  const created = JSON.parse(add.out);
  assert.deepEqual({ id: created.id, subject: created.subject, description: created.description, status: created.status }, { id: 1, subject: 'Write the docs', description: 'all of them', status: 'pending' });
  const review = await observed(team, 'tasks', [...at, 'task', 'add', 'Review', '--blocked-by', '1']);
  assert.match(review.out, /^Created \[ \] #2: Review {2}\(blocked by #1\)\n$/);
  assert.deepEqual((await team.tasks.get(2))?.blockedBy, [1]);

  const done = await observed(team, 'tasks', [...at, 'task', 'done', '#1']);
  assert.match(done.out, /Completed \[x\] #1: Write the docs\nUnblocked \[ \] #2: Review\n/);
  assert.equal((await team.tasks.get(1))?.status, 'completed');
  assert.deepEqual((await team.tasks.get(2))?.blockedBy, []);

  const sent = await observed(team, 'inbox', [...at, 'send', 'alice', 'please', 'review', '#2']);
  assert.equal(sent.out, 'Sent to alice.\n');
  const [msg] = await team.mailbox.history('alice');
  assert.deepEqual([msg?.from, msg?.type, msg?.content], ['user', 'message', 'please review #2']);
  // Delivery is tracked apart from history: the CLI consumed nothing.
  assert.equal((await team.mailbox.unread('alice')).messages.length, 1);

  const shut = await observed(team, 'requests', [...at, 'shutdown', 'alice', '--json']);
  assert.equal(JSON.parse(shut.out).to, 'alice');

  const lags = [add, review, done, sent, shut].map((o) => o.lagMs);
  assert.ok(lags.every((l) => l < 100), `observation lag after exit: ${lags.map((l) => l.toFixed(1)).join(', ')} ms`);
});

test('read commands: --json shapes, history without consuming, and no files created', async (t) => {
  const root = await tempDir(t);
  const empty = await tempDir(t);
  for (const args of [['team'], ['tasks'], ['inbox'], ['requests']]) {
    assert.equal((await runCli(['--root', empty, ...args])).code, 0);
  }
  assert.deepEqual(await readdir(empty), [], 'read-only commands leave no .team/.tasks behind');

  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('bob', 'reviewer', { current_task: 3, usage: { input: 1000, output: 234, cache_read: 0, cache_write: 0 } });
  const plan = await team.submitPlan('bob', '1. read\n2. review', 'user');
  await team.mailbox.send({ from: 'bob', to: 'user', type: 'message', content: 'hello\nsecond line' });

  const tj = JSON.parse((await runCli(['--root', root, 'team', '--json'])).stdout);
  assert.equal(tj.members[0].name, 'bob');
  assert.equal(tj.members[0].tokens, 1234);
  assert.equal(tj.pending_requests[0].request_id, plan.request_id);
  const text = (await runCli(['--root', root, 'team'])).stdout;
  assert.match(text, /bob\s+reviewer\s+working\s+#3\s+1,234 tok/);
  assert.match(text, new RegExp(`Pending requests:\\n  ${plan.request_id}  plan from bob to user`));

  const inbox = await runCli(['--root', root, 'inbox', 'user', '--json']);
  const msgs = JSON.parse(inbox.stdout);
  assert.deepEqual(msgs.map((m: { type: string }) => m.type), ['plan_approval_request', 'message']);
  const inboxText = (await runCli(['--root', root, 'inbox'])).stdout;
  assert.match(inboxText, /bob -> user {2}\[message\]\n {4}hello\n {4}second line/);
  assert.equal((await team.mailbox.unread('user')).messages.length, 2, 'inbox did not consume');

  const reqs = JSON.parse((await runCli(['--root', root, 'requests', '--json'])).stdout);
  assert.equal(reqs.length, 1);
  const approved = await runCli(['--root', root, 'approve', plan.request_id, '--feedback', 'go']);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal((await team.requests.get(plan.request_id))?.status, 'approved');
  const again = await runCli(['--root', root, 'approve', plan.request_id]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already approved/);
  assert.equal(JSON.parse((await runCli(['--root', root, 'requests', '--json'])).stdout).length, 0);
});

test('send - reads the message from stdin; run() works in-process', async (t) => {
  const root = await tempDir(t);
  const r = await runCli(['--root', root, 'send', 'lead', '-'], { input: 'line one\nline two\n' });
  assert.equal(r.code, 0, r.stderr);
  const team = new Team(root);
  t.after(() => team.dispose());
  assert.equal((await team.mailbox.history('lead'))[0]?.content, 'line one\nline two');

  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d) => (out += d));
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env: {}, cwd: root, isTTY: false, onSigint: () => () => undefined };
  assert.equal(await run(['task', 'add', 'in', 'process', '--json'], io), 0);
  assert.equal(JSON.parse(out).subject, 'in process');
  assert.equal(await run(['tasks', '--nope'], io), 2);
});

test('a write command that fails leaves an empty folder empty (no .team/ for a window to take for a team)', async (t) => {
  const root = await tempDir(t);
  for (const args of [['send', 'alice', 'hi'], ['broadcast', 'hi all'], ['task', 'done', '3'], ['approve', 'req_x'], ['shutdown', 'bob'], ['shutdown', 'lead']]) {
    const r = await runCli(['--root', root, ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.deepEqual(await readdir(root), [], `${args.join(' ')} wrote nothing`);
  }
  const made = await runCli(['--root', root, 'task', 'add', 'first']);
  assert.equal(made.code, 0, made.stderr);
  assert.ok((await readdir(root)).includes('.tasks'));
});

test('what agents and files say reaches the terminal as text: no escapes run, one row per member, columns line up', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('ann', '写作者 🎉');
  await team.spawnMember('bea', 'multi\nline role');
  await team.spawnMember('cat', 'clear \u001b[2J\u001b]0;owned\u0007 screen');
  await team.tasks.create({ subject: 'red \u001b[31mRED' });
  const out = (await runCli(['--root', root, 'team'])).stdout + (await runCli(['--root', root, 'tasks'])).stdout;
  assert.doesNotMatch(out, /\u001b|\u0007/, 'no control characters reach the terminal');
  assert.match(out, /clear \^\[\[2J\^\[\]0;owned\^G screen/);
  assert.match(out, /red \^\[\[31mRED/);
  const rows = out.split('\n').filter((l) => /^\s*(ann|bea|cat) /.test(l));
  assert.equal(rows.length, 3, 'one row each');
  assert.match(rows[1]!, /multi line role/);
  // The status column starts at the same terminal column on every row.
  const col = (l: string) => displayWidth(l.slice(0, l.indexOf('working')));
  assert.equal(new Set(rows.map(col)).size, 1, rows.join('\n'));
});

test('task unblock: a task whose blocker was damaged and moved aside can be freed', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.tasks.create({ subject: 'build' });
  await team.tasks.create({ subject: 'test' });
  await team.tasks.create({ subject: 'deploy', blockedBy: [1, 2] });
  await writeFile(join(root, '.tasks', 'task_1.json'), '{"id": 1, "subj');
  assert.equal((await runCli(['--root', root, 'task', 'done', '1'])).code, 1, 'the damaged blocker cannot be completed');
  const wrong = await runCli(['--root', root, 'task', 'unblock', '3', '--from', '7']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /task 3 is not blocked by #7/);
  const one = JSON.parse((await runCli(['--root', root, 'task', 'unblock', '3', '--from', '1', '--json'])).stdout);
  assert.deepEqual(one.task.blockedBy, [2]);
  assert.equal((await runCli(['--root', root, 'task', 'unblock', '3'])).code, 0);
  assert.deepEqual((await team.tasks.get(3))?.blockedBy, []);
  assert.equal((await runCli(['--root', root, 'task', 'unblock'])).code, 2);
});
