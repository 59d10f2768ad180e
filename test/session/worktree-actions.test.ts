// The worktree actions of the session's action table, without any host: the question a
// window asks before deleting or committing work is the action's own (its scope's `ask`),
// and a host that cannot ask gets the manager's refusal. The VS Code commands, the CLI and
// the REPL run these same entries (ARCHITECTURE.md, "The action table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { ACTIONS, sessionScope, TeamSession, WorktreeError, type ActionScope, type Question } from '../../src/core/session';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { tempDir } from '../helpers/tmp';

const run = promisify(execFile);

async function setup(t: TestContext) {
  const home = await tempDir(t);
  await writeFile(join(home, 'gitconfig'), '');
  const env = { ...process.env, HOME: home, GIT_CONFIG_GLOBAL: join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  const root = await tempDir(t);
  const git = (...args: string[]) => run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: root, env });
  await git('init', '-q', '-b', 'main');
  await writeFile(join(root, 'a.txt'), 'one\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'init');
  const worktrees = new WorktreeManager(root, { env });
  const session = new TeamSession({ root, worktrees });
  t.after(() => session.dispose());
  const ann = await worktrees.create('ann');
  await writeFile(join(ann.workdir, 'draft.txt'), 'unsaved work\n');
  const asked: Question[] = [];
  const scope = (answer?: boolean): ActionScope => ({
    ...sessionScope(session), git: { env },
    ...(answer === undefined ? {} : { ask: async (q: Question) => (asked.push(q), answer) }),
  });
  return { session, worktrees, scope, asked };
}

test('worktreeRemove: dirty work is removed only if the user, asked, says so; a host that cannot ask gets the refusal', async (t) => {
  const f = await setup(t);
  await assert.rejects(ACTIONS.worktreeRemove.run(f.scope(), { name: 'ann' }), (e) => e instanceof WorktreeError && e.code === 'dirty-worktree');
  assert.equal(await ACTIONS.worktreeRemove.run(f.scope(false), { name: 'ann' }), undefined, 'the user said no');
  assert.equal(f.asked.length, 1);
  assert.equal(f.asked[0]!.yes, 'Remove Anyway');
  assert.equal((await f.worktrees.get('ann'))?.status, 'active', 'nothing removed');
  const r = await ACTIONS.worktreeRemove.run(f.scope(true), { name: 'ann' });
  assert.deepEqual(r?.removed.discardedFiles, ['draft.txt']);
  assert.equal(await f.worktrees.get('ann'), undefined);
  await assert.rejects(ACTIONS.worktreeRemove.run(f.scope(), { name: 'ann' }), /unknown worktree "ann"; there are none in this workspace/);
});

test('worktreeMerge: uncommitted work is committed first when the user says so, with the question naming the files', async (t) => {
  const f = await setup(t);
  const r = await ACTIONS.worktreeMerge.run(f.scope(true), { name: 'ann' });
  assert.match(f.asked[0]!.text, /^ann's worktree has 1 uncommitted file\(s\)\. Commit them to wt\/ann and merge\?$/);
  assert.equal(f.asked[0]!.detail, 'draft.txt');
  assert.equal(r?.status, 'merged');
  assert.deepEqual(r?.status === 'merged' && r.files, ['draft.txt']);
});
