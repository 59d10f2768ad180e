import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

const exec = promisify(execFile);
const git = (cwd: string, ...args: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

/** A repository on `main` whose one commit holds `file` = "base". */
async function initRepo(root: string, file: string): Promise<void> {
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, file), 'base\n');
  await git(root, 'add', file);
  await git(root, 'commit', '-qm', 'base');
}

test('isolated teammates edit the same file in their own worktrees; merges: one clean, one conflict', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  const commit = 'git -c user.name=t -c user.email=t@t commit -qam';
  for (const [name, line] of [['ann', 'from ann'], ['ben', 'from ben']] as const) {
    h.api.script(name,
      reply(toolUse('write_file', { path: 'shared.txt', content: `${line}\n` })),
      reply(toolUse('write_file', { path: '../../shared.txt', content: 'escape' })),
      reply(toolUse('bash', { command: `${commit} "${name} edit"` })),
      reply(toolUse('idle', {})),
    );
  }
  const [ann, ben] = await Promise.all([
    h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit shared.txt.', isolation: 'worktree' }),
    h.rt.spawnTeammate({ name: 'ben', role: 'dev', prompt: 'Edit shared.txt.', isolation: 'worktree' }),
  ]);
  assert.equal(ann.branch, 'wt/ann');
  assert.equal(ben.branch, 'wt/ben');
  await waitFor(async () => (await partsOf(h.rt).team.roster.list()).every((m) => m.status === 'idle'), 10_000, 'both idle');
  // The main checkout is untouched; each branch has its own commit.
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'base\n');
  assert.equal(await readFile(join(h.root, '.worktrees', 'ann', 'shared.txt'), 'utf8'), 'from ann\n');
  assert.equal((await git(h.root, 'show', 'wt/ben:shared.txt')).stdout, 'from ben\n');
  // Confinement: the escape attempt was refused.
  assert.match(JSON.stringify(h.api.requests('ann')[2]!.body.messages.at(-1)), /outside|escapes|not inside/i);
  const status = async () => (await git(h.root, 'status', '--porcelain')).stdout.split('\n').filter((l) => l && !/ \.(team|tasks)\/$/.test(l));
  assert.deepEqual(await status(), [], '.worktrees/ is kept out of git status');
  const first = await h.rt.worktrees.merge('ann');
  assert.equal(first.status, 'merged');
  const second = await h.rt.worktrees.merge('ben');
  assert.equal(second.status, 'conflict');
  assert.deepEqual((second as { files: string[] }).files, ['shared.txt']);
  assert.equal(await readFile(join(h.root, 'shared.txt'), 'utf8'), 'from ann\n');
  assert.deepEqual(await status(), [], 'nothing half-merged left behind');
});

test('a task bound to a worktree moves the claiming teammate into it', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'f.txt');
  const task = await h.rt.createTask({ subject: 'fix in isolation', worktree: 'fixes' });
  h.api.script('cal', reply(toolUse('idle', {})), reply(toolUse('write_file', { path: 'f.txt', content: 'fixed\n' }), toolUse('task_update', { task_id: task.id, status: 'completed' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: 'Take tasks.' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(task.id))?.status === 'completed', 8000, 'task done');
  assert.equal(await readFile(join(h.root, 'f.txt'), 'utf8'), 'base\n');
  assert.equal(await readFile(join(h.root, '.worktrees', 'fixes', 'f.txt'), 'utf8'), 'fixed\n');
  assert.match(JSON.stringify(h.api.requests('cal')[1]!.body.messages.at(-1)), /bound to git worktree \\"fixes\\"/);
});

test('isolation in a folder that is not a git repository is a clear error, nothing half-made', async (t) => {
  const h = await harness(t);
  await assert.rejects(h.rt.spawnTeammate({ name: 'dee', role: 'dev', prompt: 'x', isolation: 'worktree' }), /not a git repo/i);
  assert.equal(await partsOf(h.rt).team.roster.get('dee'), undefined);
});

test('a teammate whose worktree was deleted by hand is not resumed into the missing folder', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'f.txt');
  const task = await h.rt.createTask({ subject: 'isolated work' });
  h.api.script('ann', reply(toolUse('claim_task', { task_id: task.id }), toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Take the task.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle', 8000, 'ann idle');
  assert.equal((await partsOf(h.rt).team.tasks.get(task.id))?.owner, 'ann');
  await h.rt.dispose();
  await rm(join(h.root, '.worktrees', 'ann'), { recursive: true, force: true });

  await h.restart();
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'shutdown', 5000, 'ann marked shut down');
  const notice = h.events.find((e) => e.type === 'notice' && e.agent === 'ann' && e.level === 'warning');
  assert.match((notice as { message: string } | undefined)?.message ?? '', /not resumed: its worktree \.worktrees\/ann is gone \(branch wt\/ann is untouched\)/);
  const back = await partsOf(h.rt).team.tasks.get(task.id);
  assert.equal(back?.status, 'pending', 'its task is free for others');
  assert.ok(!back?.owner, 'and unowned');
  const calls = h.api.requests('ann').length;
  await userSends(h.rt, 'ann', 'are you there?').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.api.requests('ann').length, calls, 'no model call from the missing folder');
  // Spawned again, it gets a working checkout of its branch.
  h.api.script('ann', reply(toolUse('write_file', { path: 'g.txt', content: 'again\n' }), toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Continue.', isolation: 'worktree' });
  await waitFor(async () => (await readFile(join(h.root, '.worktrees', 'ann', 'g.txt'), 'utf8').catch(() => '')) === 'again\n', 8000, 'ann works again');
});

test('a teammate whose .worktrees became a symbolic link out of the workspace is not resumed there; a worktree spawn is refused', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'f.txt');
  h.api.script('bo', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bo', role: 'dev', prompt: 'Wait.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('bo'))?.status === 'idle', 8000, 'bo idle');
  await h.rt.dispose();
  // The folder moved out and a link left in its place (as a cloned repository can ship it).
  const outside = await mkdtemp(join(tmpdir(), 'agent-teams-outside-'));
  t.after(() => rm(outside, { recursive: true, force: true }));
  await rename(join(h.root, '.worktrees'), join(outside, 'wt'));
  await symlink(join(outside, 'wt'), join(h.root, '.worktrees'));
  const calls = h.api.requests('bo').length;
  await h.restart();
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('bo'))?.status === 'shutdown', 5000, 'bo retired');
  const notice = h.events.find((e) => e.type === 'notice' && e.agent === 'bo' && e.level === 'error');
  assert.match((notice as { message: string } | undefined)?.message ?? '', /not resumed: its worktree .* lies outside the workspace/);
  await assert.rejects(h.rt.spawnTeammate({ name: 'cy', role: 'dev', prompt: 'x', isolation: 'worktree' }), /is a symbolic link/);
  assert.equal(h.api.requests('bo').length, calls, 'no model call rooted outside');
});
