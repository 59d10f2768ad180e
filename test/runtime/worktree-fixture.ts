// A small project repository for the worktree tests: node_modules/ and .env ignored, an
// installed dependency and a .env in the main checkout, and a worktree setup in .team/settings.json.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const git = (cwd: string, ...args: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

/** A repository on `main` ignoring node_modules/ and .env, with an installed dependency and a .env in the main checkout. */
export async function projectRepo(root: string, worktree: object): Promise<void> {
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, '.gitignore'), 'node_modules/\n.env\n');
  await writeFile(join(root, 'index.js'), 'require("dep");\n');
  await git(root, 'add', '.gitignore', 'index.js');
  await git(root, 'commit', '-qm', 'base');
  await mkdir(join(root, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  await writeFile(join(root, '.env'), 'TOKEN=local\n');
  await mkdir(join(root, '.team'), { recursive: true });
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ worktree }));
}

