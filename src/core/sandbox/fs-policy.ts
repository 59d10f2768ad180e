// What a sandboxed command may write, computed from the policy table (policy.ts;
// docs/security.md): its agent's working folder, and in the repository's git folder only
// what its commits need — the object store, its own branch's ref and reflog, its own index
// and worktree admin folder. Nothing of the team's control files inside them. Each guarded
// path becomes a read-only mount over itself; a mount cannot be renamed or replaced (`mv .git
// .x` fails), but a folder holding one can, so the folders between a guard and its writable
// folder are mounts too (`pinned`). Absent names that host-side git
// would obey are covered while the command runs (sandbox.ts makes and removes the covers).
import { lstat, mkdir, readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside } from '../exec/confine';
import { findGit, type GitPaths } from '../worktree/git-folders';
import { configuredGitPaths } from './git-config-paths';
import { CONTROL_DIRS, CONTROL_FILES, GIT_FOLDER } from './policy';


export interface FsPolicy {
  /** Bound read-only again after the private /tmp and /run are mounted (a workspace under /tmp). */
  readable: string[];
  /** Bound read-write, in this order. */
  writable: string[];
  /**
   * Folders between a writable folder and a guard inside it, each bound onto itself (after
   * `writable`, shallowest first): a mount point cannot be renamed, but a folder holding one
   * can — `mv scripts x; mkdir -p scripts/hooks` would put a new hook where the guarded one was.
   */
  pinned: string[];
  /** Existing guarded paths inside a writable folder: bound read-only over themselves. */
  readOnly: string[];
  /** Absent control folders inside a writable folder: an empty read-only folder is mounted there. */
  guarded: string[];
  /** Absent files host-side git would read, inside a writable folder: covered by an empty file made before the command (sandbox.ts). */
  coverFiles: string[];
  /** Bound read-write after the read-only ones: the command's own branch ref folder and reflogs. */
  ownWritable: string[];
  /** …and read-only again on top: the other entries of the own branch's ref folder. */
  ownReadOnly: string[];
  /** The repository's git folder (shared by its worktrees), when the command may write in it. */
  gitDir: string | null;
  /** The top of the checkout the command runs in (its working folder when not in a repository). */
  checkout: string;
  /**
   * Paths the user's git settings name that a command can still replace: a symbolic link is on
   * the way (no mount can be put on a link itself), said to the user (sandbox.ts).
   */
  unguardable: string[];
}

/**
 * The policy for a command run in `cwd` by an agent of the team in `root`. `gitWritable:
 * false` (the merge queue's test command) leaves the repository's git folder read-only: the
 * branch's code under test has no reason to move a ref, and must not land itself.
 */
export async function fsPolicy(root: string, cwd: string, opts: { gitWritable?: boolean } = {}): Promise<FsPolicy> {
  const [realRoot, realCwd] = await Promise.all([realpath(root).catch(() => resolve(root)), realpath(cwd).catch(() => resolve(cwd))]);
  const git = await findGit(realCwd);
  const writable = [realCwd];
  const policy: FsPolicy = { readable: [realRoot], writable, pinned: [], readOnly: [], guarded: [], coverFiles: [], ownWritable: [], ownReadOnly: [], gitDir: null, checkout: git?.top ?? realCwd, unguardable: [] };
  const inWritable = (p: string) => writable.some((w) => isInside(w, p));
  const names = listings();
  // [path, a folder?]; null: read-only as it is (it exists).
  const wanted: Array<[string, boolean | null]> = [];
  for (const base of [...new Set([realCwd, realRoot])].filter(inWritable)) {
    for (const name of CONTROL_DIRS) wanted.push([join(base, name), true]);
    for (const name of CONTROL_FILES) wanted.push([join(base, name), false]);
    // A control path that is a symbolic link (a committed `.vscode -> config/vscode`) is guarded
    // at what it leads to, but the link itself can be replaced: said (sandbox.ts).
    const present = await names(base);
    const control = [...CONTROL_DIRS, ...CONTROL_FILES].filter((n) => present?.has(n) ?? true);
    const links = await Promise.all(control.map((n) => lstat(join(base, n)).then((st) => st.isSymbolicLink(), () => false)));
    control.forEach((n, i) => { if (links[i]) policy.unguardable.push(`${join(base, n)} (a symbolic link)`); });
  }
  if (git?.dotGitFile && inWritable(git.dotGitFile)) wanted.push([git.dotGitFile, null]);
  // A configured path whose folder does not exist yet: its first missing folder is guarded
  // instead, so that no command makes the path for the user's git to obey.
  // Files the user's git settings name: covered while absent, like the git folder's (an
  // include the user keeps optional would otherwise be written, and obeyed by the next `git status`).
  const coverable = new Set<string>();
  if (git) {
    for (const c of await configuredGitPaths(git)) {
      if (!inWritable(c.path)) continue;
      const base = writable.find((w) => isInside(w, c.path))!;
      const link = await linkOnTheWay(c.path, base);
      if (link) policy.unguardable.push(`${c.path} (${link === c.path ? 'a symbolic link' : `through the symbolic link ${link}`})`);
      const missing = await firstMissingFolder(dirname(c.path), base);
      wanted.push(missing ? [missing, true] : [c.path, c.folder]);
      if (!missing && !c.folder) coverable.add(c.path);
    }
  }
  if (git && opts.gitWritable !== false) {
    policy.gitDir = git.common;
    await gitFolder(git, policy, wanted);
  } else if (git && isInside(realCwd, git.common)) {
    // The checkout's own `.git` folder stays read-only whole (a mount: it cannot be moved away).
    wanted.push([git.common, null]);
  }
  const kinds = await Promise.all(wanted.map(([p, folder]) => (folder === null ? 'readOnly' : guard(p, realCwd, folder, names, coverable.has(p)))));
  wanted.forEach(([p], i) => {
    if (kinds[i] === 'readOnly') policy.readOnly.push(p);
    else if (kinds[i] === 'guarded') policy.guarded.push(p);
    else if (kinds[i] === 'cover') policy.coverFiles.push(p);
  });
  policy.pinned = await pinsFor(policy, [...policy.readOnly, ...policy.guarded, ...policy.coverFiles]);
  return policy;
}

/**
 * The folders to pin (FsPolicy.pinned): those between each of `covered` (read-only guards,
 * files Read deny rules hide) and the writable folder it is in, not mounts already. Only real
 * folders: bubblewrap would follow a symbolic link and bind whatever it leads to read-write.
 */
export async function pinsFor(policy: FsPolicy, covered: readonly string[]): Promise<string[]> {
  const mounts = new Set([...policy.readable, ...policy.writable, ...policy.readOnly, ...policy.guarded]);
  const rw = new Set(policy.writable);
  const out = new Set<string>();
  for (const p of covered) {
    // Up to the deepest mount above the guard: only a writable one lets a command rename what is between.
    const between: string[] = [];
    let d = dirname(p);
    for (; !mounts.has(d) && d !== dirname(d); d = dirname(d)) between.push(d);
    if (rw.has(d)) for (const b of between) out.add(b);
  }
  if (!out.size) return [];
  const real = await Promise.all([...out].map((d) => lstat(d).then((st) => st.isDirectory(), () => false)));
  return [...out].filter((_, i) => real[i]).sort((a, b) => a.length - b.length);
}

/** The first symbolic link on the way from `top` (exclusive) down to `p` (inclusive), or null. */
async function linkOnTheWay(p: string, top: string): Promise<string | null> {
  const way: string[] = [];
  for (let d = p; d !== top && isInside(top, d); d = dirname(d)) way.unshift(d);
  for (const d of way) if ((await lstat(d).catch(() => null))?.isSymbolicLink()) return d;
  return null;
}

/** The shallowest folder of `dir` below `top` that does not exist (null: `dir` exists). */
async function firstMissingFolder(dir: string, top: string): Promise<string | null> {
  let missing: string | null = null;
  for (let d = dir; d !== top && isInside(top, d); d = dirname(d)) {
    if (await lstat(d).then((st) => st.isDirectory(), () => false)) break;
    missing = d;
  }
  return missing;
}

/** The git folder's part of the policy: see GIT_FOLDER. */
async function gitFolder(git: GitPaths, policy: FsPolicy, wanted: Array<[string, boolean | null]>): Promise<void> {
  const k = git.common;
  const main = git.admin === null;
  // The main checkout renames `index.lock` over `index` at the top of the git folder, so that
  // folder is writable for it, every name in it that git obeys read-only (or covered). A
  // linked worktree writes its own admin folder instead, and nothing at the top.
  policy.writable.push(...(main ? [k] : [join(k, 'objects'), git.admin!]));
  if (main) {
    for (const n of new Set([...GIT_FOLDER.readOnly, ...Object.keys(GIT_FOLDER.coverFiles)])) wanted.push([join(k, n), !GIT_FILES.has(n)]);
    for (const n of GIT_FOLDER.writable) policy.writable.push(join(k, n));
  } else {
    for (const n of GIT_FOLDER.worktreeAdminReadOnly) wanted.push([join(git.admin!, n), false]);
  }
  // The own branch: the main checkout's checked-out branch (HEAD is read-only to every
  // command), a linked worktree's `wt/<name>` — named by the product's layout, never by a
  // file the command could have written.
  const branch = main ? await checkedOut(k) : git.branch;
  if (!branch) return;
  const ref = join(k, 'refs', 'heads', ...branch.split('/'));
  const refDir = dirname(ref);
  if (!(await isRealDir(refDir, k))) return;
  policy.ownWritable.push(refDir);
  // A symbolic link a command left there cannot be bound (and git does not write through one).
  const others = (await readdir(refDir, { withFileTypes: true }).catch(() => [])).filter((d) => !d.isSymbolicLink()).map((d) => d.name);
  const tb = GIT_FOLDER.teammateBranches;
  if (refDir === join(k, 'refs', 'heads') && !others.includes(tb) && (await mkdir(join(refDir, tb)).then(() => true, () => false))) others.push(tb);
  const own = basename(ref);
  for (const n of others) if (n !== own && n !== `${own}.lock`) policy.ownReadOnly.push(join(refDir, n));
  for (const log of [join(k, 'logs', 'refs', 'heads', ...branch.split('/')), ...(main ? [join(k, 'logs', 'HEAD')] : [])]) {
    if ((await lstat(log).catch(() => null))?.isFile()) policy.ownWritable.push(log);
  }
}

/** `refs/heads/<branch>` from the repository's HEAD, or null (detached, or not a branch). */
async function checkedOut(common: string): Promise<string | null> {
  const head = await readFile(join(common, 'HEAD'), 'utf8').catch(() => '');
  const m = /^ref: refs\/heads\/(.+?)\s*$/.exec(head);
  return m && !m[1]!.split('/').some((p) => p === '' || p === '.' || p === '..') ? m[1]! : null;
}

/** A real folder (no symbolic link on the way) inside `top`. */
async function isRealDir(dir: string, top: string): Promise<boolean> {
  if (!isInside(top, dir)) return false;
  for (let d = dir; d !== top && isInside(top, d); d = dirname(d)) {
    const st = await lstat(d).catch(() => null);
    if (!st?.isDirectory()) return false;
  }
  return true;
}

/** Names at the top of a git folder that are files (the rest of GIT_FOLDER's names are folders). */
const GIT_FILES = new Set(['config', 'HEAD', ...Object.keys(GIT_FOLDER.coverFiles)]);

type GuardKind = 'readOnly' | 'guarded' | 'cover' | null;

/**
 * The names in a folder, read once per policy: the guarded names are looked up in their
 * folder's listing (one read of the checkout's top and of the git folder) instead of one
 * `lstat` each. null: not a folder; undefined: it could not be listed (then `lstat` decides).
 */
type Listings = (dir: string) => Promise<Set<string> | null | undefined>;

function listings(): Listings {
  const read = new Map<string, Promise<Set<string> | null | undefined>>();
  return (dir) => {
    let hit = read.get(dir);
    if (!hit) {
      hit = readdir(dir).then((n) => new Set(n), (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? null : undefined));
      read.set(dir, hit);
    }
    return hit;
  };
}

/** An existing guarded path is bound read-only; an absent folder gets an empty read-only one, an absent git file a cover. */
async function guard(p: string, cwd: string, folder: boolean, names: Listings, coverable = false): Promise<GuardKind> {
  if (isInside(p, cwd)) return null; // the agent's own checkout under .worktrees/
  const listed = await names(dirname(p));
  if (listed === null) return null;
  const st = listed && !listed.has(basename(p)) ? null : await lstat(p).catch(() => null);
  // A link (`.mcp.json -> …`) is bound at what it leads to; a dangling one cannot be bound at all
  // (it would fail every command), and counts as absent.
  if (st?.isSymbolicLink()) return (await realpath(p).then(() => true, () => false)) ? 'readOnly' : null;
  if (st) return 'readOnly';
  if (!listed && !(await lstat(dirname(p)).then((s) => s.isDirectory(), () => false))) return null;
  if (folder) return 'guarded';
  // An absent control file of the workspace (`.mcp.json`) is not covered: the user would see
  // one appear; an absent git-folder file, or a file the user's git settings name, is (sandbox.ts removes it after).
  return coverable || isGitFolderFile(p) ? 'cover' : null;
}

function isGitFolderFile(p: string): boolean {
  const name = basename(p);
  return name in GIT_FOLDER.coverFiles || (GIT_FOLDER.worktreeAdminReadOnly as readonly string[]).includes(name);
}
