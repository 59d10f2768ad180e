// Team folders written by the tutorial (learn-claude-code s09–s11) or by hand, as the CLI
// reads them: tutorial-form inbox lines, tutorial plan submissions, rosters with names
// outside our rule, hand-made blocker cycles and id mix-ups, a `.team` that is a file.
// Translated from the tutorial's own agent-teams test scenarios (docs/file-formats.md).
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/tmp';
import { runCli } from './cli-proc';

async function teamFolder(t: Parameters<typeof tempDir>[0], members: unknown[]): Promise<string> {
  const root = await tempDir(t);
  await mkdir(join(root, '.team', 'inbox'), { recursive: true });
  await writeFile(join(root, '.team', 'config.json'), JSON.stringify({ team_name: 'tut', members }));
  return root;
}

test('a tutorial inbox line (no id, no to) is a message to the inbox owner with a stable, unique id', async (t) => {
  const root = await teamFolder(t, [{ name: 'bob', role: 'coder', status: 'idle' }]);
  const line = (c: string) => JSON.stringify({ type: 'message', from: 'lead', content: c, timestamp: 1 });
  await writeFile(join(root, '.team', 'inbox', 'bob.jsonl'), `${line('hi')}\n${line('hi')}\n`);
  const first = await runCli(['--root', root, 'inbox', 'bob', '--json']);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stderr, /invalid message/);
  const msgs = JSON.parse(first.stdout) as { id: string; to: string; content: string }[];
  assert.deepEqual(msgs.map((m) => [m.to, m.content]), [['bob', 'hi'], ['bob', 'hi']]);
  assert.notEqual(msgs[0]!.id, msgs[1]!.id, 'two identical lines are two messages');
  const again = JSON.parse((await runCli(['--root', root, 'inbox', 'bob', '--json'])).stdout) as { id: string }[];
  assert.deepEqual(again.map((m) => m.id), msgs.map((m) => m.id), 'ids are the same on every read, in every process');
});

test('a tutorial plan submission (plan_approval_response with plan) can be approved: its request record is created', async (t) => {
  const root = await teamFolder(t, [{ name: 'bob', role: 'coder', status: 'idle' }]);
  const plan = { type: 'plan_approval_response', from: 'bob', content: 'step 1', plan: 'step 1', request_id: 'ab12cd34', timestamp: 2 };
  await writeFile(join(root, '.team', 'inbox', 'user.jsonl'), `${JSON.stringify(plan)}\n`);
  const r = await runCli(['--root', root, 'approve', 'ab12cd34', '--feedback', 'go']);
  assert.equal(r.code, 0, r.stderr);
  const record = JSON.parse(await readFile(join(root, '.team', 'requests', 'ab12cd34.json'), 'utf8'));
  assert.equal(record.status, 'approved');
  assert.equal(record.from, 'bob');
  assert.equal(record.plan, 'step 1');
  const toBob = JSON.parse((await runCli(['--root', root, 'inbox', 'bob', '--json'])).stdout) as { type: string; approve: boolean; request_id: string }[];
  assert.deepEqual(toBob.map((m) => [m.type, m.approve, m.request_id]), [['plan_approval_response', true, 'ab12cd34']]);
  // Decided once: a second answer is refused like any other.
  const twice = await runCli(['--root', root, 'reject', 'ab12cd34', 'no']);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /already approved/);
});

test('a roster with a tutorial name ("Alice") is not moved aside by a read: the valid members stay, the others are reported', async (t) => {
  const root = await teamFolder(t, [
    { name: 'Alice', role: 'coder', status: 'working' },
    { name: 'bob', role: 'tester', status: 'idle' },
  ]);
  const team = await runCli(['--root', root, 'team']);
  assert.equal(team.code, 0, team.stderr);
  assert.match(team.stdout, /bob/);
  assert.match(team.stderr, /"Alice".*skipped/);
  assert.deepEqual((await readdir(join(root, '.team'))).filter((f) => f.includes('corrupt')), [], 'a read moves nothing');
  const send = await runCli(['--root', root, 'send', 'bob', 'hello']);
  assert.equal(send.code, 0, send.stderr);
  const config = JSON.parse(await readFile(join(root, '.team', 'config.json'), 'utf8'));
  assert.deepEqual(config.members.map((m: { name: string }) => m.name), ['Alice', 'bob']);
});

test('hand-written task files: a blockedBy cycle and an id that differs from the file name are reported', async (t) => {
  const root = await tempDir(t);
  const tasks = join(root, '.tasks');
  await mkdir(tasks, { recursive: true });
  const task = (id: number, blockedBy: number[]) => JSON.stringify({ id, subject: `t${id}`, status: 'pending', owner: '', blockedBy });
  await writeFile(join(tasks, 'task_1.json'), task(1, [2]));
  await writeFile(join(tasks, 'task_2.json'), task(2, [1]));
  await writeFile(join(tasks, 'task_3.json'), task(4, []));
  const r = await runCli(['--root', root, 'tasks']);
  // task_3.json is left out of the board, so the listing is incomplete: exit 1 (README, exit codes).
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /blockedBy cycle #1 ← #2 ← #1/);
  assert.match(r.stderr, /task_3\.json: its id is 4, not 3/);
});

test('read commands on a folder where .team is a file say it is not a team folder and exit 1', async (t) => {
  const root = await tempDir(t);
  await writeFile(join(root, '.team'), 'not a folder');
  for (const args of [['team'], ['tasks'], ['inbox'], ['requests'], ['send', 'bob', 'x']]) {
    const r = await runCli(['--root', root, ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /is not a team folder: .*\.team is a file/, args.join(' '));
  }
});
