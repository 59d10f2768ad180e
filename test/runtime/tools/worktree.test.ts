// The lead's worktree tool family (worktree_status, worktree_diff, worktree_keep,
// worktree_remove) alone, through its narrow host (WorktreeToolHost: the team's files and the
// worktrees) over a real git repository in a temporary folder — no runner, no model. What a
// user relies on (docs/tools.md): the lead never removes a checkout a teammate works in, and
// never forces away work that is not merged; the refusal is the model's to read.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { Team } from '../../../src/core/team/team';
import { WorktreeManager } from '../../../src/core/worktree/manager';
import { worktreeTools, type WorktreeToolHost } from '../../../src/core/runtime/tools/worktree-tools';
import { ToolSet, type AgentHandle, type ToolHost } from '../../../src/core/runtime/tools';
import { tempDir } from '../../helpers/tmp';

const run = promisify(execFile);

async function fakes(t: TestContext) {
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
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  const ann = await worktrees.create('ann');
  await team.spawnMember('ann', 'dev');
  const host: WorktreeToolHost = { team, worktrees };
  const agent = { name: 'lead', kind: 'lead', planRefusal: async () => null } as unknown as AgentHandle;
  const tools = new ToolSet(worktreeTools);
  // Sound: every handler of the family is typed against WorktreeToolHost.
  const call = (name: string, input: unknown) => tools.run(name, input, agent, host as ToolHost);
  return { team, worktrees, ann, call };
}

test('worktree_remove is refused while the teammate works in the checkout, and the checkout stays', async (t) => {
  const f = await fakes(t);
  await f.team.roster.patch('ann', { status: 'working', worktree: f.worktrees.pathOf('ann') });
  const r = await f.call('worktree_remove', { teammate: 'ann' });
  assert.equal(r.isError, true);
  assert.match(r.text, /^Refused: worktree "ann" is in use by ann; ask it to shut down first \(shutdown_request\)\.$/);
  assert.equal((await f.worktrees.get('ann'))?.status, 'active');
  assert.match((await f.call('worktree_status', {})).text, /^ann: branch wt\/ann, checkout present, .*in use by ann/);
});

test('worktree_remove never forces: uncommitted work is refused with the reason; worktree_diff shows it', async (t) => {
  const f = await fakes(t);
  await f.team.roster.setStatus('ann', 'shutdown');
  await writeFile(join(f.ann.workdir, 'draft.txt'), 'unsaved work\n');
  const diff = await f.call('worktree_diff', { teammate: 'ann', stat: true });
  assert.match(diff.text, /draft\.txt \(uncommitted\)/);
  const r = await f.call('worktree_remove', { teammate: 'ann' });
  assert.equal(r.isError, true);
  assert.match(r.text, /^Refused: /);
  assert.equal((await f.worktrees.get('ann'))?.status, 'active', 'nothing removed');
});

test('worktree_keep drops the checkout and keeps the branch once its teammate is done', async (t) => {
  const f = await fakes(t);
  await f.team.roster.setStatus('ann', 'shutdown');
  const r = await f.call('worktree_keep', { teammate: 'ann' });
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Kept branch wt\/ann; the checkout of "ann" is removed\.$/);
  assert.notEqual((await f.worktrees.get('ann'))?.status, 'active');
});
