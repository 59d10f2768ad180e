// .team/.gitignore keeps state out of git but lets a team commit what it shares
// (docs/file-formats.md): agents/, instructions.md, settings.json. Checked with real git.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Team } from '../../src/core/team/team';
import { TEAM_GITIGNORE } from '../../src/core/team/gitignore';
import { tempDir } from '../helpers/tmp';

const exec = promisify(execFile);

test('git sees .team/agents/, instructions.md and settings.json, and none of the team\'s state', async (t) => {
  const root = await tempDir(t);
  const git = async (...args: string[]) => (await exec('git', args, { cwd: root })).stdout;
  await git('init', '-q');
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: 'hello' });
  await mkdir(join(root, '.team', 'agents', 'nested'), { recursive: true });
  await writeFile(join(root, '.team', 'agents', 'reviewer.md'), '---\nname: reviewer\n---\nReview.');
  await writeFile(join(root, '.team', 'agents', 'nested', 'x.md'), 'x');
  await writeFile(join(root, '.team', 'instructions.md'), 'Use pnpm.');
  await writeFile(join(root, '.team', 'settings.json'), '{}');
  const seen = (await git('status', '--porcelain', '--untracked-files=all')).split('\n').filter(Boolean).sort();
  assert.deepEqual(seen, [
    '?? .team/agents/nested/x.md', '?? .team/agents/reviewer.md', '?? .team/instructions.md', '?? .team/settings.json',
  ]);
});

test('the old .gitignore written by earlier versions (exactly "*") is brought up to date; the user\'s own is kept', async (t) => {
  const old = await tempDir(t);
  await mkdir(join(old, '.team'));
  await writeFile(join(old, '.team', '.gitignore'), '# Agent Teams state: kept out of git.\n*\n');
  const a = await new Team(old).init();
  a.dispose();
  assert.equal(await readFile(join(old, '.team', '.gitignore'), 'utf8'), TEAM_GITIGNORE);
  assert.equal(await readFile(join(old, '.tasks', '.gitignore'), 'utf8'), '# Agent Teams state: kept out of git.\n*\n', 'the board stays out whole');

  const mine = await tempDir(t);
  await mkdir(join(mine, '.team'));
  await writeFile(join(mine, '.team', '.gitignore'), '*\n');
  const b = await new Team(mine).init();
  b.dispose();
  assert.equal(await readFile(join(mine, '.team', '.gitignore'), 'utf8'), '*\n');
});
