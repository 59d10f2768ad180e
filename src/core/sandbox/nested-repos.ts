// Git repositories an agent's command made inside its folder (docs/security.md, "Nested
// repositories"): such a repository's git folder holds a config and hooks of the command's
// choosing, which git run by the user or by VS Code's Source Control (it opens nested
// repositories by itself) would obey outside the sandbox — `core.fsmonitor` runs a program on
// the next `git status`. After a command ends, each new one has its `.git` renamed to
// DISABLED_NAME (a name git never opens) and is reported; nothing else of it is touched.
import { lstat, readdir, realpath, rename } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { git, splitZ } from '../worktree/git';

export const DISABLED_NAME = '.git.disabled-by-agent-teams';
/** Entries looked at inside untracked folders; the rest of a huge untracked tree is not searched. */
const WALK_CAP = 5000;
/** Not searched: dependencies (VS Code's scan skips them), the teammates' checkouts (each is searched after its own commands). */
const SKIP = new Set(['node_modules', '.git', '.worktrees', DISABLED_NAME]);

/**
 * Finds the repositories under `checkout` that git does not track as its own files: untracked
 * folders holding a `.git` (listed by git, collapsed), a `.git` deeper inside them (a bounded
 * walk), a `.git` made in a folder of tracked files (`git init src`: each such folder looked
 * at, up to WALK_CAP), and folders committed or staged as a repository link (mode 160000).
 */
export async function findNestedRepos(checkout: string): Promise<string[]> {
  // One git: untracked folders collapsed (`dir/`), and the index with modes (links are 160000).
  const r = await git(['ls-files', '-z', '--others', '--directory', '--stage'], { cwd: checkout, allowFail: true, timeoutMs: 30_000 });
  const folders: string[] = [];
  /** Folders holding tracked files: a `git init` there makes a repository git lists nowhere. */
  const tracked = new Set<string>();
  for (const e of splitZ(r.stdout)) {
    const staged = /^(\d{6}) [0-9a-f]+ \d\t(.*)$/s.exec(e);
    if (staged) {
      if (staged[1] === '160000') folders.push(staged[2]!);
      else for (let d = staged[2]!; d.includes('/') && tracked.size < WALK_CAP;) tracked.add((d = d.slice(0, d.lastIndexOf('/'))));
    } else if (e.endsWith('/')) folders.push(e.slice(0, -1));
  }
  const found = new Set<string>();
  await Promise.all([...tracked].filter((f) => !f.split('/').some((p) => SKIP.has(p))).map(async (f) => {
    const dir = join(checkout, ...f.split('/'));
    if ((await lstat(join(dir, '.git')).catch(() => null)) !== null) found.add(dir);
  }));
  let budget = WALK_CAP;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if ((await lstat(join(dir, '.git')).catch(() => null)) !== null) { found.add(dir); return; }
    if (depth > 6 || budget <= 0) return;
    const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
    budget -= names.length;
    await Promise.all(names.filter((d) => d.isDirectory() && !SKIP.has(d.name)).map((d) => walk(join(dir, d.name), depth + 1)));
  };
  await Promise.all(folders.filter((f) => f && !f.split('/').some((p) => SKIP.has(p))).map((f) => walk(join(checkout, ...f.split('/')), 0)));
  return [...found].sort();
}

/** Renames each nested repository's `.git` aside; returns the folders (relative to `checkout`) it disabled. */
export async function neutraliseNestedRepos(checkout: string): Promise<string[]> {
  const done: string[] = [];
  const top = await realpath(checkout).catch(() => checkout);
  for (const dir of await findNestedRepos(checkout)) {
    const rel = relative(checkout, dir);
    if (!rel || rel.startsWith('..')) continue;
    // A folder reached through a link the command planted (a repository link staged at
    // `sub -> ~/other-project`, or at `self -> .`) is not the command's: never renamed.
    if ((await realpath(dir).catch(() => null)) !== join(top, rel)) continue;
    let target = join(dir, DISABLED_NAME);
    for (let i = 2; await lstat(target).then(() => true, () => false); i++) target = join(dir, `${DISABLED_NAME}-${i}`);
    if (await rename(join(dir, '.git'), target).then(() => true, () => false)) done.push(rel.split(sep).join('/'));
  }
  return done;
}
