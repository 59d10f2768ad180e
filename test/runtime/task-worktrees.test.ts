// Tasks bound to a worktree (docs/file-formats.md, "Tasks"): whoever claims one — lead or
// teammate — works in that worktree or does not hold the task; a worktree that cannot be
// created is an error to the claimer, never a crash; after a restart a teammate carries on
// in its task's worktree. Scenarios from the tutorial's agent-teams suite, through the SDK.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { fault, reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const exec = promisify(execFile);
const git = (cwd: string, ...args: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

async function initRepo(root: string): Promise<void> {
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, 'f.txt'), 'base\n');
  await git(root, 'add', 'f.txt');
  await git(root, 'commit', '-qm', 'base');
}

const lastTo = (h: Awaited<ReturnType<typeof harness>>, agent: string) => JSON.stringify(h.api.requests(agent).at(-1)?.body.messages.at(-1) ?? '');

/** cal claimed a task bound to worktree "fixes" and its host went away mid-task. */
async function calStoppedMidTask(t: Parameters<typeof harness>[0]) {
  const h = await harness(t);
  await initRepo(h.root);
  const task = await h.rt.createTask({ subject: 'fix in isolation', worktree: 'fixes' });
  h.api.script('cal', reply(toolUse('claim_task', { task_id: task.id })), fault.hang());
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: `Take task ${task.id}.` });
  await waitFor(() => h.api.requests('cal').length >= 2, 8000, 'cal mid-task');
  await h.rt.dispose();
  return { h, task };
}

test('after a restart a teammate carries on in the worktree of its in-progress task', async (t) => {
  const { h, task } = await calStoppedMidTask(t);
  h.api.script('cal', reply(toolUse('write_file', { path: 'f.txt', content: 'fixed\n' })), reply(toolUse('idle', {})));
  await h.restart();
  await waitFor(async () => (await readFile(join(h.root, '.worktrees', 'fixes', 'f.txt'), 'utf8')) === 'fixed\n', 8000, 'write in the worktree');
  assert.equal(await readFile(join(h.root, 'f.txt'), 'utf8'), 'base\n', 'the main checkout is untouched');
});

test('a worktree that cannot be created: task_create refuses it; a bound task in the files is an error to its claimer, never a crash, and stays unclaimed', async (t) => {
  const h = await harness(t);
  await initRepo(h.root);
  await git(h.root, 'branch', 'wt/busy'); // someone else's branch with our naming
  h.api.script('lead', reply(toolUse('task_create', { subject: 'x', worktree: 'busy' })), 'ok');
  await h.rt.askLead('Make a task.');
  assert.match(lastTo(h, 'lead'), /Not created: worktree \\"busy\\" cannot be used: branch wt\/busy already exists/);
  assert.deepEqual(await partsOf(h.rt).team.tasks.list(), []);
  await assert.rejects(h.rt.createTask({ subject: 'x', worktree: 'busy' }), /branch wt\/busy already exists/);

  // Written past the checks (by hand, by another tool): idle teammates must survive it.
  const bad = await partsOf(h.rt).team.tasks.create({ subject: 'bound to a bad worktree', worktree: 'busy' });
  h.api.script('dan', reply(toolUse('idle', {})));
  h.api.script('eve', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'dan', role: 'dev', prompt: 'Wait.' });
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Wait.' });
  await waitFor(() => h.events.filter((e) => e.type === 'notice' && /bound to worktree "busy", which cannot be used/.test((e as { message: string }).message)).length >= 2, 8000, 'both told');
  await sleep(300);
  for (const name of ['dan', 'eve']) assert.equal((await partsOf(h.rt).team.roster.get(name))?.status, 'idle', `${name} alive and idle`);
  const back = await partsOf(h.rt).team.tasks.get(bad.id);
  assert.deepEqual([back?.status, back?.owner], ['pending', ''], 'the task is back on the board');
  const calls = h.api.requests('dan').length + h.api.requests('eve').length;
  await sleep(500);
  assert.equal(h.api.requests('dan').length + h.api.requests('eve').length, calls, 'no model calls over the unworkable task');
});

test('a claim refused because the worktree cannot be resolved (not a git repository) leaves the task unclaimed', async (t) => {
  const h = await harness(t);
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'bound', worktree: 'wt1' });
  h.api.script('lead', reply(toolUse('claim_task', { task_id: task.id })), 'ok');
  await h.rt.askLead('Claim it.');
  assert.match(lastTo(h, 'lead'), /task 1 is bound to worktree \\"wt1\\", which cannot be used: .*not a git repo.*The task stays unclaimed/i);
  const after = await partsOf(h.rt).team.tasks.get(task.id);
  assert.deepEqual([after?.status, after?.owner], ['pending', '']);
});

test("the lead's claim of a worktree-bound task moves the lead into it; completing it moves it back once that reply's calls have run", async (t) => {
  const h = await harness(t);
  await initRepo(h.root);
  const task = await h.rt.createTask({ subject: 'fix', worktree: 'fixes' });
  h.api.script('lead',
    reply(toolUse('claim_task', { task_id: task.id })),
    reply(toolUse('write_file', { path: 'f.txt', content: 'lead fix\n' })),
    // "Mark done + write notes" in one reply: the notes belong with the work.
    reply(toolUse('task_update', { task_id: task.id, status: 'completed' }), toolUse('write_file', { path: 'NOTES.md', content: 'notes\n' })),
    reply(toolUse('write_file', { path: 'after.txt', content: 'home\n' })),
    'done',
  );
  await h.rt.askLead('Do the fix yourself.');
  const wt = join(h.root, '.worktrees', 'fixes');
  assert.equal(await readFile(join(wt, 'f.txt'), 'utf8'), 'lead fix\n');
  assert.equal(await readFile(join(h.root, 'f.txt'), 'utf8'), 'base\n');
  assert.equal(await readFile(join(wt, 'NOTES.md'), 'utf8'), 'notes\n', 'the notes written after "completed" in the same reply are in the worktree');
  await assert.rejects(stat(join(h.root, 'NOTES.md')), 'not in the main checkout');
  assert.match(JSON.stringify(h.api.requests('lead')[3]!.body.messages.at(-1)),
    /The rest of this reply's calls still run in worktree \\"fixes\\" \([^)]*\); from your next reply you work in /);
  await stat(join(h.root, 'after.txt'));
});

test('after a restart, a teammate that completes its worktree task and writes notes in one reply writes them in the worktree', async (t) => {
  const { h, task } = await calStoppedMidTask(t);
  h.api.script('cal',
    reply(toolUse('task_update', { task_id: task.id, status: 'completed' }), toolUse('write_file', { path: 'NOTES.md', content: 'done\n' })),
    reply(toolUse('write_file', { path: 'home.txt', content: 'home\n' }), toolUse('idle', {})));
  await h.restart();
  await waitFor(() => stat(join(h.root, 'home.txt')).then(() => true, () => false), 8000, 'the next reply at home');
  assert.equal(await readFile(join(h.root, '.worktrees', 'fixes', 'NOTES.md'), 'utf8'), 'done\n');
  await assert.rejects(stat(join(h.root, 'NOTES.md')), 'the main checkout got no notes');
});
