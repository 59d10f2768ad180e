// Real git for runtime tests: a repository on `main` with one commit, and its status.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const git = (cwd: string, ...args: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

/** A repository on `main` whose one commit holds `file` = "base" (and `more`). */
export async function initRepo(root: string, file: string, more: Record<string, string> = {}): Promise<void> {
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, file), 'base\n');
  for (const [f, c] of Object.entries(more)) await writeFile(join(root, f), c);
  await git(root, 'add', file, ...Object.keys(more));
  await git(root, 'commit', '-qm', 'base');
}

/** `git status --porcelain` lines, without the team's own folders. */
export async function status(root: string): Promise<string[]> {
  return (await git(root, 'status', '--porcelain')).stdout.split('\n').filter((l) => l && !/ \.(team|tasks)\/$/.test(l));
}
