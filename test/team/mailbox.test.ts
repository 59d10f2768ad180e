import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { sleep, tempDir, waitFor } from '../helpers/tmp';

async function newTeam(t: Parameters<typeof tempDir>[0]): Promise<Team> {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  await team.spawnMember('alice', 'coder');
  await team.spawnMember('bob', 'tester');
  return team;
}

function collectProblems(t: { after: (fn: () => void) => void }): Problem[] {
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  return problems;
}

test('send → unread → ack; reading never deletes the thread', async (t) => {
  const team = await newTeam(t);
  const m1 = await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'hi' });
  await team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: 'yo' });
  assert.match(m1.id, /.+/);
  assert.ok(Math.abs(m1.timestamp - Date.now() / 1000) < 5);
  const d = await team.mailbox.unread('alice');
  assert.deepEqual(d.messages.map((m) => [m.from, m.content]), [['lead', 'hi'], ['bob', 'yo']]);
  assert.deepEqual((await team.mailbox.unread('alice')).messages.length, 2, 'not delivered until acked');
  await team.mailbox.ack('alice', d.cursor);
  assert.deepEqual((await team.mailbox.unread('alice')).messages, []);
  assert.equal((await team.mailbox.history('alice')).length, 2);
  const line = JSON.parse((await readFile(team.paths.inbox('alice'), 'utf8')).split('\n')[0]!);
  assert.deepEqual(Object.keys(line).slice(0, 6), ['id', 'type', 'from', 'to', 'content', 'timestamp']);
});

test('callers cannot forge id or timestamp', async (t) => {
  const team = await newTeam(t);
  const m = await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'x', id: 'forged', timestamp: 1 });
  assert.notEqual(m.id, 'forged');
  assert.notEqual(m.timestamp, 1);
});

test('unknown or shut-down recipients, unknown types and bad names are errors the sender sees', async (t) => {
  const team = await newTeam(t);
  await assert.rejects(team.mailbox.send({ from: 'lead', to: 'zed', type: 'message', content: 'x' }), /unknown recipient "zed"/);
  await assert.rejects(team.mailbox.send({ from: 'lead', to: '../x', type: 'message', content: 'x' }), /invalid name/);
  await assert.rejects(team.mailbox.send({ from: 'lead', to: 'alice', type: 'telepathy' as 'message', content: 'x' }), /unknown message type/);
  await assert.rejects(team.mailbox.send({ from: 'lead', to: 'alice', type: 'shutdown_request', content: 'x' }), /invalid shutdown_request/);
  await team.roster.setStatus('bob', 'shutdown');
  await assert.rejects(team.mailbox.send({ from: 'lead', to: 'bob', type: 'message', content: 'x' }), /has shut down/);
  await team.mailbox.send({ from: 'alice', to: 'user', type: 'message', content: 'to the human' });
  assert.equal((await team.mailbox.history('user')).length, 1);
});

test('broadcast reaches every live teammate except the sender', async (t) => {
  const team = await newTeam(t);
  await team.spawnMember('carol', 'r');
  await team.roster.setStatus('carol', 'shutdown');
  const sent = await team.mailbox.broadcast('alice', 'standup');
  assert.deepEqual(sent.map((m) => m.to), ['bob']);
  assert.equal((await team.mailbox.history('alice')).length, 0);
  assert.equal((await team.mailbox.history('bob'))[0]?.type, 'broadcast');
});

test('malformed, truncated and unknown lines are skipped with a report; later lines still arrive', async (t) => {
  const team = await newTeam(t);
  const problems = collectProblems(t);
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'one' });
  const path = team.paths.inbox('alice');
  await appendFile(path, 'not json at all\n');
  await appendFile(path, '{"id":"x1","type":"teleport","from":"lead","to":"alice","content":"?","timestamp":1}\n');
  await appendFile(path, '{"id":"x2","type":"message","from":"lead"\n'); // truncated record
  // A writer killed mid-line, then the next append lands on the same line: recovered.
  await appendFile(path, '{"id":"torn","type":"mess');
  await team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: 'after the tear' });
  await appendFile(path, '{"id":"legacy","type":"plan_approval_response","from":"bob","to":"alice","content":"p","timestamp":2,"request_id":"r1","plan":"do it"}\n');
  const got = (await team.mailbox.unread('alice')).messages;
  assert.deepEqual(got.map((m) => m.content), ['one', 'after the tear', 'p']);
  assert.equal(got[2]?.type, 'plan_approval_request', 'the tutorial form of a plan submission is read as a request');
  assert.ok(problems.filter((p) => p.path === path).length >= 3, JSON.stringify(problems));
  assert.ok(problems.some((p) => /recovered/.test(p.message)));
});

test('an unterminated last line is not consumed until its newline arrives', async (t) => {
  const team = await newTeam(t);
  const path = team.paths.inbox('alice');
  const full = JSON.stringify({ id: 'p1', type: 'message', from: 'lead', to: 'alice', content: 'half', timestamp: 1 });
  await appendFile(path, full.slice(0, 20));
  const d1 = await team.mailbox.unread('alice');
  assert.equal(d1.messages.length, 0);
  assert.equal(d1.cursor, 0);
  await appendFile(path, full.slice(20) + '\n');
  assert.equal((await team.mailbox.unread('alice')).messages[0]?.content, 'half');
});

test('thread merges both directions in time order', async (t) => {
  const team = await newTeam(t);
  await team.mailbox.send({ from: 'alice', to: 'bob', type: 'message', content: '1' });
  await team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: '2' });
  await team.mailbox.send({ from: 'lead', to: 'bob', type: 'message', content: 'other thread' });
  await team.mailbox.send({ from: 'alice', to: 'bob', type: 'message', content: '3' });
  assert.deepEqual((await team.mailbox.thread('alice', 'bob')).map((m) => m.content), ['1', '2', '3']);
});

test('a fast back-and-forth keeps its order in the thread, even within one millisecond', async (t) => {
  const team = await newTeam(t);
  const sent: string[] = [];
  for (let i = 0; i < 40; i++) {
    const [from, to] = i % 2 ? ['bob', 'alice'] : ['alice', 'bob'];
    await team.mailbox.send({ from, to, type: 'message', content: String(i) });
    sent.push(String(i));
  }
  assert.deepEqual((await team.mailbox.thread('alice', 'bob')).map((m) => m.content), sent);
});

test('a send from another process wakes a subscriber within 100 ms', async (t) => {
  const team = await newTeam(t);
  let wokeAt = 0;
  const sub = await team.mailbox.subscribe('alice', () => {
    wokeAt ||= Date.now();
  });
  t.after(() => sub.dispose());
  // The child reports when it started each send (same clock), so child start-up is not counted.
  const script = `
    const { Team } = require(${JSON.stringify(require.resolve('../../src/core/team/team'))});
    const team = new Team(${JSON.stringify(team.root)});
    process.stdout.write('ready\\n');
    process.stdin.on('data', async () => {
      const t0 = Date.now();
      await team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: 'ping' });
      process.stdout.write(t0 + '\\n');
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const nextLine = () => new Promise<string>((r) => child.stdout.once('data', (d: Buffer) => r(d.toString().trim())));
  await nextLine();
  const lat: number[] = [];
  for (let i = 0; i < 5; i++) {
    wokeAt = 0;
    const line = nextLine();
    child.stdin.write('go\n');
    const t0 = Number(await line);
    await waitFor(() => wokeAt, 2000, 'wake');
    lat.push(wokeAt - t0);
    await sleep(20);
  }
  // The median, so one sample a loaded machine delays does not decide it; a wake that waits
  // for a poll instead of the file watch is hundreds of ms every time.
  const median = [...lat].sort((a, b) => a - b)[2]!;
  assert.ok(median < 100, `wake latencies ${lat.join(', ')} ms`);
});

test('one sender that does not await each send still keeps its order', async (t) => {
  const team = await newTeam(t);
  await Promise.all(Array.from({ length: 300 }, (_, i) => team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: String(i) })));
  const got = (await team.mailbox.history('alice')).map((m) => Number(m.content));
  assert.deepEqual(got, Array.from({ length: 300 }, (_, i) => i));
  // A rejected send in the middle takes no slot and does not disturb the others.
  const results = await Promise.allSettled([
    team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: 'a' }),
    team.mailbox.send({ from: 'bob', to: 'alice', type: 'shutdown_request', content: 'no request_id' }),
    team.mailbox.send({ from: 'bob', to: 'alice', type: 'message', content: 'b' }),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual((await team.mailbox.history('alice')).slice(-2).map((m) => m.content), ['a', 'b']);
});

test('an inbox file replaced or deleted by hand still gets the next message (no append into the old file)', async (t) => {
  const team = await newTeam(t);
  const file = team.paths.inbox('alice');
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'first' });
  // Moved aside and recreated within the append handle's idle time.
  await rename(file, `${file}.old`);
  await writeFile(file, '');
  await sleep(100); // the append handle is checked against its path every 50 ms
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'after replace' });
  assert.match(await readFile(file, 'utf8'), /after replace/);
  await unlink(file);
  await sleep(100);
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'after delete' });
  assert.match(await readFile(file, 'utf8'), /after delete/);
  assert.doesNotMatch(await readFile(`${file}.old`, 'utf8'), /after/);
});
