// The interactive session driven through piped stdin against the fake Messages API: the
// lead spawns a teammate, plans are rejected and approved at the prompt, /team /tasks
// /inbox show the team, mail to the user appears live, and /quit shuts the team down.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { reply, toolUse, type RecordedRequest } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { fakeApi, runCli, session } from './cli-proc';

const lastMessage = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1));

/** alice: answers shutdown requests, revises a rejected plan, works once approved. */
function alice(r: RecordedRequest) {
  const m = lastMessage(r);
  const shut = /type=\\"shutdown_request\\" request_id=\\"(req_\w+)\\"/.exec(m);
  if (shut) return reply(toolUse('shutdown_response', { request_id: shut[1], approve: true, reason: 'done here' }));
  if (/Plan first/.test(m)) return reply(toolUse('plan_approval', { plan: '1. write notes.md\n2. tell the user' }));
  if (/approve=\\"false\\"/.test(m)) return reply(toolUse('plan_approval', { plan: 'v2: a short notes.md' }));
  if (/approve=\\"true\\"/.test(m)) {
    return reply(toolUse('write_file', { path: 'notes.md', content: '# notes\n' }), toolUse('send_message', { to: 'user', content: 'notes.md written' }));
  }
  return reply(toolUse('idle', {}));
}

test('REPL: spawn, plan rejected then approved, /team, /tasks, /inbox, live mail, /quit', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead',
    reply('Spawning alice.', toolUse('spawn_teammate', { name: 'alice', role: 'writer', prompt: 'Plan first, then write notes.md.' })),
    'Alice is on it.',
  );
  api.setDefault((r) => (r.agent === 'alice' ? alice(r) : 'ok'));
  // Another process (this test) fills the board, with nothing left for alice to claim.
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.tasks.create({ subject: 'draft' });
  await team.tasks.create({ subject: 'outline' });
  await team.tasks.create({ subject: 'publish', blockedBy: [1] });
  // Owned by someone outside this team (written by hand: the board itself refuses a non-member owner).
  await writeFile(team.paths.task(1), JSON.stringify({ id: 1, subject: 'draft', description: '', status: 'in_progress', owner: 'bob', blockedBy: [] }));
  await team.tasks.update(2, { status: 'completed' });
  const repl = await session(t, root, api);
  await repl.ready();

  repl.send('Get alice to write notes.');
  await repl.expect(/\[lead\] spawn_teammate\(name="alice", role="writer"/);
  await repl.expect(/> Spawned alice \(writer\)/);
  await repl.expect(/Alice is on it\./);
  const first = (await repl.expect(/Plan from alice awaits your approval \((req_\w+)\):\n {4}1\. write notes\.md\n {4}2\. tell the user\n {2}\/approve req_\w+ \[feedback\] {3}or {3}\/reject/))[1]!;

  repl.send(`/reject ${first} Too long: keep it short`);
  await repl.expect(new RegExp(`Rejected ${first}\\.`));
  const second = (await repl.expect(/Plan from alice awaits your approval \((req_\w+)\):\n {4}v2: a short notes\.md/))[1]!;
  assert.notEqual(second, first);

  repl.send('/team');
  await repl.expect(/Team "[^"]+": 1 teammate\n.*\n {2}lead\s+lead\s+\w+.*\n {2}alice\s+writer\s+(idle|working)/);
  await repl.expect(new RegExp(`Pending requests:\\n {2}${second}  plan from alice to user`));

  repl.send('/tasks');
  await repl.expect(/\[>\] #1: draft {2}@bob\n\[x\] #2: outline\n\[ \] #3: publish {2}\(blocked by #1\)\n1\/3 completed/);

  repl.send('/approve'); // the only pending plan
  await repl.expect(new RegExp(`Approved ${second}\\.`));
  await repl.expect(/mail: \d\d:\d\d:\d\d {2}alice -> user {2}\[message\]\n {4}notes\.md written/);
  assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), '# notes\n');

  repl.send('/inbox');
  await repl.expect(new RegExp(`alice -> user {2}\\[plan_approval_request ${first}\\]`));
  await repl.expect(/alice -> user {2}\[message\]\n {4}notes\.md written/);
  repl.send('/inbox alice');
  await repl.expect(new RegExp(`user -> alice {2}\\[plan_approval_response ${first} rejected\\]\\n {4}Too long: keep it short`));
  await repl.expect(new RegExp(`user -> alice {2}\\[plan_approval_response ${second} approved\\]`));

  repl.send('/quit');
  await repl.expect(/Asking alice to shut down/);
  await repl.expect(/Bye\./);
  assert.equal(await repl.exited, 0);
  assert.ok(!repl.saw(/did not shut down in time/), 'alice answered the shutdown request');
  assert.equal((await team.roster.get('alice'))?.status, 'shutdown');
  const told = (await team.mailbox.history('user')).filter((m) => m.type === 'shutdown_response');
  assert.equal(told.length, 1);
  if (process.env.CLI_TEST_SHOW) console.log(repl.out);
});

test('REPL: bash approval at the prompt (always / deny), unknown commands, EOF ends the session', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead',
    reply('Running.', toolUse('bash', { command: 'echo hi-there' })),
    reply(toolUse('bash', { command: 'echo hi-there' })),
    reply(toolUse('bash', { command: 'echo nope' })),
    'Ran them.',
  );
  const repl = await session(t, root, api, ['--bash', 'ask', '--sandbox', 'off']);
  await repl.ready();
  repl.send('run things');
  await repl.expect(/lead wants to run a shell command:\n {4}echo hi-there\nAllow\? \[y\]es \/ \[a\]lways this command \/ \[p\]refix: always Bash\(echo:\*\) \/ \[N\]o:/);
  repl.send('a');
  await repl.expect(/\[lead\] bash\(command="echo hi-there"\)\n.*hi-there/);
  // "always" covers the same command: the second call runs without a question.
  await repl.expect(/\[lead\] bash\(command="echo hi-there"\)\n.*hi-there/);
  await repl.expect(/lead wants to run a shell command:\n {4}echo nope\nAllow\?/);
  repl.send('n');
  await repl.expect(/\[lead\] bash\(command="echo nope"\)\n {6}x The user denied this command\./);
  await repl.expect(/Ran them\./);
  assert.equal((repl.out.match(/Allow\?/g) ?? []).length, 2);

  repl.send('/frobnicate');
  await repl.expect(/Unknown command \/frobnicate\. \/help lists them\./);
  repl.send('/stop nobody');
  await repl.expect(/error: unknown teammate "nobody"/);

  api.script('lead', 'Last words.');
  repl.send('one more thing');
  repl.child.stdin.end();
  await repl.expect(/Last words\./);
  await repl.expect(/Bye\./);
  assert.equal(await repl.exited, 0);
});

test('REPL: without ANTHROPIC_API_KEY it explains and exits 1', async (t) => {
  const root = await tempDir(t);
  const r = await runCli(['--root', root]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no Anthropic API key\. Set ANTHROPIC_API_KEY/);
  assert.match(r.stderr, /subcommands .* work without a key/);
});
