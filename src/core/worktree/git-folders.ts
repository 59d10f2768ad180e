// Where a checkout's git folders are (docs/security.md, "The policy table"), found from the
// files the product's layout fixes, never from one a command could have written: the main
// checkout's `.git` folder is its own common folder (a `commondir` in it is ignored), and a
// linked worktree's common folder is its admin folder's grandparent
// (`<common>/worktrees/<name>`). The product's git names both explicitly (git.ts), and the
// sandbox's policy (sandbox/fs-policy.ts) is computed from them.
import { lstat, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export interface GitPaths {
  /** The repository's common git folder. */
  common: string;
  /** A linked worktree's `.git` file, null in the main checkout. */
  dotGitFile: string | null;
  /** A linked worktree's admin folder (`<common>/worktrees/<name>`), null in the main checkout. */
  admin: string | null;
  /** A linked worktree's branch by the product's layout (`.worktrees/<name>` works on `wt/<name>`). */
  branch: string | null;
  /** The top of the checkout. */
  top: string;
}

/**
 * The `.git` above `dir`. A linked worktree's common folder is the admin folder's
 * grandparent (`<common>/worktrees/<name>`), never what a `commondir` file says.
 */
export async function findGit(dir: string): Promise<GitPaths | null> {
  const dirs = [dir];
  for (let d = dir; dirname(d) !== d; d = dirname(d)) dirs.push(dirname(d));
  // Every level at once; the nearest `.git` that is a folder or a file counts.
  const found = await Promise.all(dirs.map((d) => lstat(join(d, '.git')).catch(() => null)));
  const i = found.findIndex((st) => st?.isDirectory() || st?.isFile());
  if (i < 0) return null;
  const top = dirs[i]!;
  const dotGit = join(top, '.git');
  if (found[i]!.isDirectory()) return { common: dotGit, dotGitFile: null, admin: null, branch: null, top };
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, 'utf8').catch(() => ''));
  if (!m) return null;
  const admin = await realpath(resolve(top, m[1]!)).catch(() => null);
  if (!admin) return null;
  // A checkout whose git folder lives elsewhere (a submodule's, `git init --separate-git-dir`).
  if (basename(dirname(admin)) !== 'worktrees') return { common: admin, dotGitFile: dotGit, admin: null, branch: null, top };
  const common = dirname(dirname(admin));
  const name = basename(top);
  const branch = basename(dirname(top)) === '.worktrees' ? `wt/${name}` : null;
  return { common, dotGitFile: dotGit, admin, branch, top };
}
