// What a sandboxed command may write (docs/security.md): its agent's working folder and the
// repository's git folder (a commit writes objects and refs there, and a worktree's `.git`
// is a file pointing into `<repo>/.git/worktrees/<name>`); nothing of the team's control
// files inside them: `.team/`, `.tasks/`, `.worktrees/` (but the agent's own checkout),
// `.vscode/`, `.claude/`, `.mcp.json`, `.git/hooks`, `.git/config`, and the files that tell
// git where a worktree's repository is. Each becomes a read-only mount over itself; a mount
// cannot be renamed or replaced, so neither can a folder that holds one (`mv .git .x` fails).
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isInside } from '../exec/confine';

/** Control folders, per working folder (and the workspace root when it is writable). */
export const CONTROL_DIRS = ['.team', '.tasks', '.worktrees', '.vscode', '.claude'] as const;
/** Control files: an absent one cannot be guarded without leaving a file behind (docs/security.md). */
export const CONTROL_FILES = ['.mcp.json'] as const;

export interface FsPolicy {
  /** Bound read-only again after the private /tmp and /run are mounted (a workspace under /tmp). */
  readable: string[];
  /** Bound read-write, in this order. */
  writable: string[];
  /** Existing control paths inside a writable folder: bound read-only over themselves. */
  readOnly: string[];
  /** Absent control folders inside a writable folder: an empty read-only folder is mounted there. */
  guarded: string[];
  /** The repository's git folder (shared by its worktrees), when there is one. */
  gitDir: string | null;
}

/**
 * The policy for a command run in `cwd` by an agent of the team in `root`. `gitWritable:
 * false` (the merge queue's test command) leaves the repository's git folder read-only: the
 * branch's code under test has no reason to move a ref, and must not land itself.
 */
export async function fsPolicy(root: string, cwd: string, opts: { gitWritable?: boolean } = {}): Promise<FsPolicy> {
  const [realRoot, realCwd] = await Promise.all([realpath(root).catch(() => resolve(root)), realpath(cwd).catch(() => resolve(cwd))]);
  const candidates = [...new Set([realCwd, realRoot])];
  // Looked at while the git folder is found (which of them count depends on it).
  const looks = new Map<string, Promise<GuardKind>>();
  for (const base of candidates) {
    for (const name of CONTROL_DIRS) looks.set(join(base, name), guard(join(base, name), realCwd, true));
    for (const name of CONTROL_FILES) looks.set(join(base, name), guard(join(base, name), realCwd, false));
  }
  const git = await findGit(realCwd);
  const writable = [realCwd];
  const gitWritable = !!git && opts.gitWritable !== false;
  // Bound even when inside the folder: a mount cannot be renamed away (`mv .git .x`).
  if (gitWritable) writable.push(git.common);
  const policy: FsPolicy = { readable: [realRoot], writable, readOnly: [], guarded: [], gitDir: gitWritable ? git.common : null };
  const inWritable = (p: string) => writable.some((w) => isInside(w, p));
  const bases = candidates.filter(inWritable);
  // Every path is looked at at once (a command's start waits for this); kept in this order.
  // [path, a folder?]; null: read-only as it is (no look needed).
  const wanted: Array<[string, boolean | null]> = [];
  for (const base of bases) {
    for (const name of CONTROL_DIRS) wanted.push([join(base, name), true]);
    for (const name of CONTROL_FILES) wanted.push([join(base, name), false]);
  }
  if (git) {
    // A worktree's `.git` file says where its repository is: rewritten, host-side git would
    // run hooks and config of the command's choosing.
    if (git.dotGitFile && inWritable(git.dotGitFile)) wanted.push([git.dotGitFile, null]);
    wanted.push([join(git.common, 'hooks'), true], [join(git.common, 'config'), false]);
    for (const name of await readdir(join(git.common, 'worktrees')).catch(() => [] as string[])) {
      for (const f of ['commondir', 'gitdir', 'config.worktree']) wanted.push([join(git.common, 'worktrees', name, f), false]);
    }
  }
  const kinds = await Promise.all(wanted.map(([p, folder]) => (folder === null ? 'readOnly' : looks.get(p) ?? guard(p, realCwd, folder))));
  wanted.forEach(([p], i) => {
    if (kinds[i] === 'readOnly') policy.readOnly.push(p);
    else if (kinds[i] === 'guarded') policy.guarded.push(p);
  });
  return policy;
}

type GuardKind = 'readOnly' | 'guarded' | null;

/** An existing control path is bound read-only; an absent control folder gets an empty read-only one. */
async function guard(p: string, cwd: string, folder: boolean): Promise<GuardKind> {
  if (isInside(p, cwd)) return null; // the agent's own checkout under .worktrees/
  const st = await lstat(p).catch(() => null);
  if (st) return 'readOnly';
  if (folder && (await lstat(dirname(p)).then((s) => s.isDirectory(), () => false))) return 'guarded';
  return null;
}

/** The `.git` above `dir`: its common folder, and the `.git` file when it is a worktree's. */
async function findGit(dir: string): Promise<{ common: string; dotGitFile: string | null } | null> {
  const dirs = [dir];
  for (let d = dir; dirname(d) !== d; d = dirname(d)) dirs.push(dirname(d));
  // Every level at once; the nearest `.git` that is a folder or a file counts.
  const found = await Promise.all(dirs.map((d) => lstat(join(d, '.git')).catch(() => null)));
  const i = found.findIndex((st) => st?.isDirectory() || st?.isFile());
  if (i < 0) return null;
  const dotGit = join(dirs[i]!, '.git');
  if (found[i]!.isDirectory()) return { common: dotGit, dotGitFile: null };
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, 'utf8').catch(() => ''));
  if (!m) return null;
  const gitDir = resolve(dirs[i]!, m[1]!);
  const common = (await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  const real = await realpath(common ? resolve(gitDir, common) : gitDir).catch(() => null);
  return real ? { common: real, dotGitFile: dotGit } : null;
}
