// Failures say what failed (docs/file-formats.md, "Merge queue"): the step, the exit code, the
// first errors, whether the branch or the environment is at fault — the teammate is sent to
// change its branch only in the first case; a conflict names the other side's commits and who
// made them. The queue's notes come from the team, not from the teammate to itself; the scratch
// checkout is gone after the run. Real git, the real runner.
import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import type { MergeEntry } from '../../src/shared/schemas/merge-queue';
import { harness, type Harness } from './harness';
import { git, initRepo } from './git-helpers';
import { partsOf } from '../helpers/session-parts';

/** A worktree teammate `name` (scripted to idle whenever woken) whose branch changes `file`. */
async function branchWith(h: Harness, name: string, file: string, content: string): Promise<void> {
  h.api.script(name, ...Array.from({ length: 4 }, () => reply(toolUse('idle', {}))));
  await h.rt.spawnTeammate({ name, role: 'dev', prompt: 'Wait.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 10_000, `${name} idle`);
  const wt = (await h.rt.worktrees.get(name))!;
  await writeFile(join(wt.path, file), content);
  await git(wt.path, 'add', file);
  await git(wt.path, 'commit', '-qm', `${name} change`);
}

const settled = (h: Harness, who: string) => waitFor(async () => {
  const e = (await h.rt.mergeQueue.latestByTeammate()).get(who);
  return e && (e.state === 'merged' || e.state === 'failed') ? e : undefined;
}, 30_000, `${who} settled`) as Promise<MergeEntry>;

/** The queue's last note to `who`, once it has arrived (the entry is written failed before the team is told). */
const noteTo = (h: Harness, who: string) => waitFor(async () => (await partsOf(h.rt).team.mailbox.history(who)).filter((m) => m.to === who && /\[merge queue\]/.test(m.content)).at(-1), 10_000, `note to ${who}`);

test('a test that fails only with the branch: its fault, step test, exit code and first errors; the teammate is told to fix it, from the team', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'broken by ann\n');
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'grep -q base shared.txt || { echo "Error: shared.txt lost its base" >&2; exit 4; }' });
  const e = await settled(h, 'ann');
  assert.equal(e.state, 'failed');
  assert.deepEqual({ step: e.failure?.step, fault: e.failure?.fault, exit: e.failure?.exit_code }, { step: 'test', fault: 'branch', exit: 4 });
  assert.match(e.failure?.why ?? '', /passes on main without the branch/);
  assert.match(e.failure?.first_errors ?? '', /Error: shared\.txt lost its base/);
  const note = (await noteTo(h, 'ann'))!;
  assert.equal(note.from, 'team', 'from the team, not "ann -> ann"');
  assert.match(note.content, /Fix it in your worktree[\s\S]*Step: test, exit code 4\. At fault: the branch/);
});

test('a test that fails on the workspace branch alone too, or whose program is missing: the environment\'s fault; the teammate is not sent to change its branch', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'a.txt', 'ann\n');
  await branchWith(h, 'ben', 'b.txt', 'ben\n');
  const task = await h.rt.createTask({ subject: 'ann part' });
  await partsOf(h.rt).team.tasks.update(task.id, { status: 'completed' }, 'lead');
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'test -e never.txt', task: task.id });
  const a = await settled(h, 'ann');
  assert.equal(a.failure?.fault, 'environment');
  assert.match(a.failure?.why ?? '', /fails on main without the branch too \(exit 1\)/);
  assert.equal((await partsOf(h.rt).team.tasks.get(task.id))?.status, 'completed', 'its task is not sent back to in_progress');
  const toAnn = (await noteTo(h, 'ann'))!;
  assert.match(toAnn.content, /the environment, not your branch[\s\S]*do not change your branch/);
  assert.doesNotMatch(toAnn.content, /Fix it in your worktree/);

  await h.rt.mergeQueue.add('ben', { by: 'user', testCommand: 'bash -c "no_such_tool_q7 --run"' });
  const b = await settled(h, 'ben');
  assert.deepEqual({ fault: b.failure?.fault, exit: b.failure?.exit_code }, { fault: 'environment', exit: 127 });
  assert.match(b.failure?.first_errors ?? '', /no_such_tool_q7: command not found/);
  assert.match((await noteTo(h, 'lead'))!.content, /The branch is not at fault/);
});

test('a conflict names the files and the workspace branch\'s commits that changed them, with their authors; the scratch checkout is gone after the run', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'from ann\n');
  await writeFile(join(h.root, 'shared.txt'), 'from the user\n');
  await git(h.root, '-c', 'user.name=Uma User', 'commit', '-qam', 'User rewrites shared');
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'true' });
  const e = await settled(h, 'ann');
  assert.equal(e.failure?.step, 'merge');
  assert.deepEqual(e.files, ['shared.txt']);
  assert.deepEqual(e.failure?.theirs?.map((c) => [c.subject, c.author]), [['User rewrites shared', 'Uma User']]);
  assert.match((await noteTo(h, 'ann'))!.content, /main changed those files in: [0-9a-f]+ "User rewrites shared" by Uma User/);
  await h.rt.mergeQueue.idle();
  assert.doesNotMatch((await git(h.root, 'worktree', 'list')).stdout, /agent-teams-merge-/);
});

test('a teammate that stops while its entry is being tested does not kill the test: the entry lands', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'a.txt', 'ann\n');
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'touch started.txt; sleep 2; test -e a.txt' });
  await waitFor(async () => {
    const e = (await h.rt.mergeQueue.latestByTeammate()).get('ann');
    const scratch = /^worktree (.*agent-teams-merge-.*)$/m.exec((await git(h.root, 'worktree', 'list', '--porcelain')).stdout)?.[1];
    return e?.state === 'testing' && scratch ? stat(join(scratch, 'started.txt')).then(() => true, () => false) : false;
  }, 20_000, 'ann\'s test running');
  await h.rt.stopTeammate('ann');
  const e = await settled(h, 'ann');
  assert.equal(e.state, 'merged', `the queue's test is not the teammate's command: ${e.reason}`);
});

test('a branch at fault whose teammate has shut down: the lead is told to spawn it again (nobody is fixing it)', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt');
  await branchWith(h, 'ann', 'shared.txt', 'broken by ann\n');
  await partsOf(h.rt).team.retireMember('ann');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'shutdown', 10_000, 'ann shut down');
  await h.rt.mergeQueue.add('ann', { by: 'user', testCommand: 'grep -q base shared.txt' });
  assert.equal((await settled(h, 'ann')).failure?.fault, 'branch');
  const note = (await noteTo(h, 'lead'))!;
  assert.match(note.content, /ann has shut down, so nobody is fixing it: spawn_teammate "ann" again/);
});
