// The paths the user's git configuration names as code or configuration (sandbox/git-config-paths.ts):
// what fs-policy guards so that the user's own git never runs what an agent's command wrote.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { configuredGitPaths } from '../../src/core/sandbox/git-config-paths';
import { fsPolicy } from '../../src/core/sandbox/fs-policy';
import { findGit } from '../../src/core/worktree/git-folders';
import { tempDir } from '../helpers/tmp';

const exec = promisify(execFile);

test('hooks folders, includes and program paths the configuration names are found and guarded; plain words and booleans are not', async (t) => {
  const root = await realpath(await tempDir(t));
  const cfg = (k: string, v: string) => exec('git', ['config', '--add', k, v], { cwd: root });
  await exec('git', ['init', '-q'], { cwd: root });
  await mkdir(join(root, '.husky', '_'), { recursive: true });
  await cfg('core.hooksPath', '.husky/_');
  await cfg('include.path', '../shared.gitconfig');
  await cfg('filter.x.clean', './scripts/clean.sh %f');
  await cfg('diff.y.textconv', '"tools/conv" --flag');
  await cfg('filter.lfs.smudge', 'git-lfs smudge -- %f');
  await cfg('core.fsmonitor', 'true');
  const found = (await configuredGitPaths((await findGit(root))!)).map((p) => `${p.path.slice(root.length + 1)}${p.folder ? '/' : ''}`);
  assert.deepEqual(found.sort(), ['.husky/', '.husky/_/', 'scripts/clean.sh', 'shared.gitconfig', 'tools/conv'].sort());
  const policy = await fsPolicy(root, root);
  assert.ok(policy.readOnly.includes(join(root, '.husky')) && policy.readOnly.includes(join(root, '.husky', '_')), 'the hooks folders are read-only');
  // An absent included file is covered while a command runs (an empty file, removed after); a changed .git/config is read again.
  assert.ok(policy.coverFiles.some((f) => f.endsWith('shared.gitconfig')));
  await exec('git', ['config', '--unset', 'core.hooksPath'], { cwd: root });
  const again = await configuredGitPaths((await findGit(root))!);
  assert.ok(!again.some((p) => p.folder), 'read again after the config changed');
});

test('a control folder or file that is a symbolic link is named as unguardable (red team B9: a command replaced the committed .vscode link)', async (t) => {
  const root = await realpath(await tempDir(t));
  await exec('git', ['init', '-q'], { cwd: root });
  await mkdir(join(root, 'config', 'vscode'), { recursive: true });
  await symlink('config/vscode', join(root, '.vscode'));
  await mkdir(join(root, '.claude'));
  const policy = await fsPolicy(root, root);
  assert.deepEqual(policy.unguardable, [`${join(root, '.vscode')} (a symbolic link)`], 'the link is named; a real .claude is not');
  assert.ok(policy.readOnly.includes(join(root, '.vscode')), 'what it leads to is still read-only');
});
