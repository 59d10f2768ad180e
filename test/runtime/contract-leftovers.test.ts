// Contract leftovers (docs/file-formats.md, "Tasks" and "Messages"): mail before tasks,
// owners named before they are spawned, reserved tasks that unblock, and a lead that hears
// the team finish. Each scenario runs through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, systemText, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const exec = promisify(execFile);
const sent = (h: Harness, agent: string, i: number) => JSON.stringify(h.api.requests(agent)[i]?.body.messages.at(-1) ?? '');
const systemTextOf = (h: Harness) => systemText(h.api.requests('lead')[0]!.body);
const idle = (h: Harness, name: string) =>
  waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);

test('mail and an auto-assigned task never arrive in one wake: the task is handed over alone, the mail read on its own', async (t) => {
  const h = await harness(t);
  // A worktree-bound task takes a moment to hand over (git worktree add): mail sent meanwhile used to ride along.
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: h.root });
  await writeFile(join(h.root, 'f.txt'), 'x\n');
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base', '--allow-empty'], { cwd: h.root });
  h.api.script('amy', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Wait for work.' });
  await idle(h, 'amy');
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead',
    reply(toolUse('task_create', { subject: 'refactor', worktree: 'wt1' }), toolUse('send_message', { to: 'amy', content: 'leave task 1 to bob' })),
    'ok');
  await h.rt.askLead('Plan.');
  await waitFor(() => h.api.requests('amy').length >= 3, 8000, 'amy handed both');
  const wakes = h.api.requests('amy').slice(1).map((r) => JSON.stringify(r.body.messages.at(-1)));
  for (const w of wakes) {
    assert.ok(!(/Task #1 was assigned/.test(w) && /leave task 1 to bob/.test(w)), `task and mail in one wake: ${w}`);
  }
});

test('a task may name as owner a teammate spawned later in the same reply; spawn_teammate(task) starts it on a task claimed before its first call', async (t) => {
  const h = await harness(t);
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead',
    reply(
      toolUse('task_create', { subject: 'write docs', owner: 'alice' }),
      toolUse('spawn_teammate', { name: 'alice', role: 'writer', prompt: 'Wait for your task.' }),
      toolUse('task_create', { subject: 'fix the parser', description: 'Acceptance: npm test passes.' }),
      toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Go.', task: 2 }),
    ),
    'ok');
  await h.rt.askLead('Plan and staff it.');
  const results = sent(h, 'lead', 1);
  assert.match(results, /Created #1 \[pending\] owner=alice write docs/);
  assert.match(results, /Spawned bob \(dev\); it is working on task #2 \(claimed for it\) and your prompt/);
  const bobFirst = sent(h, 'bob', 0);
  assert.match(bobFirst, /You start on task #2, claimed for you: fix the parser/);
  assert.match(bobFirst, /Acceptance: npm test passes/);
  assert.deepEqual([(await partsOf(h.rt).team.tasks.get(2))?.owner], ['bob']);
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(1))?.status === 'in_progress', 8000, 'alice takes her reserved task');
  assert.equal((await partsOf(h.rt).team.tasks.get(1))?.owner, 'alice');
});

test('an owner that does not exist or has shut down: the whole batch is rejected, and the error says so and what to do', async (t) => {
  const h = await harness(t);
  h.api.script('zed', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'zed', role: 'dev', prompt: 'Wait.' });
  await idle(h, 'zed');
  await h.rt.stopTeammate('zed');
  h.api.script('lead',
    reply(toolUse('task_create', { tasks: [{ subject: 'a' }, { subject: 'b', owner: 'carol' }] })),
    reply(toolUse('task_create', { subject: 'c', owner: 'zed' })),
    reply(toolUse('spawn_teammate', { name: 'dan', role: 'dev', prompt: 'Go.', task: 99 })),
    'ok');
  await h.rt.askLead('Plan.');
  assert.match(sent(h, 'lead', 1), /Nothing created: the whole call was rejected \(none of its 2 tasks is on the board\): owner \\"carol\\" is not a teammate yet: spawn_teammate carol first \(later in the same reply is fine\)/);
  assert.match(sent(h, 'lead', 2), /Not created: owner \\"zed\\" has shut down: spawn_teammate zed starts it again/);
  assert.match(sent(h, 'lead', 3), /not spawned: it cannot start on task 99: task 99 not found/);
  assert.deepEqual(await partsOf(h.rt).team.tasks.list(), []);
  assert.equal(await partsOf(h.rt).team.roster.get('dan'), undefined);
});

test('a task reserved for a teammate and blocked: when its blocker completes, the idle owner is woken with it at once', async (t) => {
  // The slow poll is no help here: the wake must come from the change itself.
  const h = await harness(t, { idlePollSeconds: 60 });
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Wait.' });
  await idle(h, 'bob');
  // The lead keeps the build for itself, and reserves the deploy that waits for it for bob.
  h.api.script('lead', reply(toolUse('task_create', { tasks: [{ ref: 'c', subject: 'build', owner: 'lead' }, { subject: 'deploy', owner: 'bob', blockedBy: ['c'] }] })), 'ok');
  await h.rt.askLead('Plan.');
  await sleep(300);
  const before = h.api.requests('bob').length;
  await h.rt.updateTask(1, { status: 'completed' });
  await waitFor(() => h.api.requests('bob').length > before, 3000, 'bob woken for his unblocked task');
  assert.match(sent(h, 'bob', before), /Task #2 was reserved for you by name on the board and is now yours: deploy/);
});

test('results do not wake the lead one by one: it is woken once, when no teammate works and nothing is left to claim, with all of them', async (t) => {
  const h = await harness(t);
  h.api.script('amy', 'Docs written.');
  h.api.script('bo', reply(toolUse('bash', { command: 'sleep 1' })), 'Tests pass.');
  h.api.script('lead', 'Both done: docs written, tests pass.');
  await h.rt.spawnTeammate({ name: 'amy', role: 'writer', prompt: 'Write the docs.' });
  await h.rt.spawnTeammate({ name: 'bo', role: 'tester', prompt: 'Run the tests.' });
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.history('lead')).some((m) => m.from === 'amy'), 5000, 'amy reported');
  await sleep(300);
  assert.equal(h.api.requests('lead').length, 0, 'not woken while bo still works');
  await waitFor(() => h.api.requests('lead').length >= 1, 8000, 'lead woken when the team went quiet');
  await sleep(600);
  assert.equal(h.api.requests('lead').length, 1, 'woken once');
  const woke = JSON.stringify(h.api.requests('lead')[0]!.body.messages.at(-1));
  assert.match(woke, /The team is quiet: no teammate is working and nothing is left to claim/);
  assert.match(woke, /from=\\"amy\\" type=\\"result\\">\\nDocs written\..*from=\\"bo\\" type=\\"result\\">\\nTests pass\./);
  assert.match(systemTextOf(h), /Results and notices come all in one turn when the team goes quiet/);
});
