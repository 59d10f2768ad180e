// Read-mostly questions about the repository (where it is, what is dirty, which worktrees
// git knows) and the two small writes every worktree operation shares: the exclude entry and
// "commit everything".
import { lstat, mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { APPEND_NO_FOLLOW } from '../team/jsonl';
import { WorktreeError, fileList } from './errors';
import { git, identityArgs, splitZ, firstLines, type GitEnvOptions } from './git';

export interface RepoInfo {
  toplevel: string;
  /** Workspace folder relative to `toplevel`, '/'-separated, no trailing slash ('' at the root). */
  subdir: string;
  excludePath: string;
  /** This checkout's own git folder (where HEAD, MERGE_HEAD and a rebase's state live). */
  gitDir: string;
}

export async function repoInfo(root: string, ctx: GitEnvOptions): Promise<RepoInfo> {
  if (!(await stat(root).then((s) => s.isDirectory(), () => false))) {
    throw new WorktreeError('not-a-repo', `workspace folder ${root} does not exist`);
  }
  const r = await git(['rev-parse', '--show-toplevel', '--show-prefix', '--git-path', 'info/exclude', '--absolute-git-dir'], { ...ctx, cwd: root, allowFail: true });
  const lines = r.stdout.split('\n');
  if (r.code !== 0 || lines.length < 4 || !lines[0]) {
    throw new WorktreeError('not-a-repo', `${root} is not in a git repository (${firstLines(r.stderr) || 'git rev-parse failed'}); worktree isolation needs one: run "git init" and commit first`);
  }
  const exclude = lines[2] ?? '';
  return { toplevel: lines[0], subdir: (lines[1] ?? '').replace(/\/+$/, ''), excludePath: isAbsolute(exclude) ? exclude : resolve(root, exclude), gitDir: lines[3] ?? '' };
}

/**
 * Keeps `.worktrees/` out of `git status` through `info/exclude`: it is local to this clone,
 * so we never edit a file the user commits (.gitignore). Idempotent.
 */
export async function ensureExcluded(info: RepoInfo): Promise<void> {
  const pattern = `/${info.subdir ? `${info.subdir}/` : ''}.worktrees/`;
  const current = await readFile(info.excludePath, 'utf8').catch(() => '');
  const lines = current.split(/\r?\n/).map((l) => l.trim());
  if (lines.includes(pattern) || (info.subdir === '' && lines.includes('.worktrees/'))) return;
  // Never through a symbolic link (docs/security.md, "Denied stays denied"): one planted at
  // `info` or `info/exclude` would have the host append to a file of the planter's choosing.
  const dir = dirname(info.excludePath);
  const st = await lstat(dir).catch(() => null);
  if (st && !st.isDirectory()) throw new WorktreeError('git-failed', `${dir} is not a folder (a symbolic link?): not writing the exclude entry through it`);
  if (!st) await mkdir(dir, { recursive: true });
  const sep = current === '' || current.endsWith('\n') ? '' : '\n';
  const fh = await open(info.excludePath, APPEND_NO_FOLLOW, 0o644)
    .catch((e: NodeJS.ErrnoException) => { throw new WorktreeError('git-failed', `cannot write ${info.excludePath} (${e.code === 'ELOOP' ? 'a symbolic link: not followed' : e.message})`, [], { cause: e }); });
  try { await fh.appendFile(`${sep}# Agent Teams: teammates' isolated worktrees\n${pattern}\n`, 'utf8'); } finally { await fh.close(); }
}

/**
 * Paths with uncommitted changes, relative to the repository root. `untracked: false` looks
 * at tracked files only (what a merge or a fresh branch would disagree with).
 */
export async function dirtyFiles(cwd: string, ctx: GitEnvOptions, untracked: boolean, run: typeof git = git): Promise<string[]> {
  const r = await run(['status', '--porcelain', '-z', `--untracked-files=${untracked ? 'all' : 'no'}`], {
    ...ctx, cwd, extraEnv: { GIT_OPTIONAL_LOCKS: '0' }, // do not fight the user's git for index.lock
  });
  const entries = splitZ(r.stdout);
  const files: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] ?? '';
    files.push(e.slice(3));
    if (e[0] === 'R' || e[0] === 'C') i++; // the rename's source path follows
  }
  return files;
}

export async function branchExists(cwd: string, branch: string, ctx: GitEnvOptions): Promise<boolean> {
  const r = await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { ...ctx, cwd, allowFail: true });
  return r.code === 0;
}

/** The commit a ref names, or undefined. Refs starting with '-' are refused, never run. */
export async function resolveCommit(cwd: string, ref: string, ctx: GitEnvOptions): Promise<string | undefined> {
  if (ref.startsWith('-') || ref.includes('\0')) return undefined;
  const r = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { ...ctx, cwd, allowFail: true });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The branch checked out at `cwd`, or undefined when HEAD is detached. */
export async function currentBranch(cwd: string, ctx: GitEnvOptions): Promise<string | undefined> {
  const r = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { ...ctx, cwd, allowFail: true });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** Stages everything (untracked included, ignored excluded) and commits it. */
export async function commitAll(cwd: string, message: string, ctx: GitEnvOptions): Promise<string> {
  await git(['add', '-A'], { ...ctx, cwd });
  const r = await git([...(await identityArgs(cwd, ctx)), 'commit', '--quiet', '-m', message], { ...ctx, cwd, allowFail: true });
  if (r.code !== 0) {
    throw new WorktreeError('git-failed', `committing in ${cwd} failed: ${firstLines(r.stderr || r.stdout)}`);
  }
  return (await git(['rev-parse', 'HEAD'], { ...ctx, cwd })).stdout.trim();
}

/** Refuses with the dirty files listed, unless there are none. */
export function refuseDirty(code: 'dirty-worktree' | 'dirty-main' | 'dirty-base', files: string[], what: string, advice: string): void {
  if (files.length) throw new WorktreeError(code, `${what} has uncommitted changes (${fileList(files)}); ${advice}`, files);
}

export interface GitWorktreeEntry {
  path: string;
  head?: string;
  /** Short branch name (`wt/alice`), absent when detached. */
  branch?: string;
  prunable: boolean;
  locked: boolean;
}

/** Parses `git worktree list --porcelain` (without -z, which git < 2.36 lacks). */
export function parseWorktreeList(out: string): GitWorktreeEntry[] {
  const entries: GitWorktreeEntry[] = [];
  let cur: GitWorktreeEntry | undefined;
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) {
      cur = { path: line.slice('worktree '.length), prunable: false, locked: false };
      entries.push(cur);
    } else if (!cur) {
      continue;
    } else if (line.startsWith('HEAD ')) cur.head = line.slice(5);
    else if (line.startsWith('branch ')) cur.branch = line.slice(7).replace(/^refs\/heads\//, '');
    else if (line === 'prunable' || line.startsWith('prunable ')) cur.prunable = true;
    else if (line === 'locked' || line.startsWith('locked ')) cur.locked = true;
  }
  return entries;
}

export async function listGitWorktrees(cwd: string, ctx: GitEnvOptions): Promise<GitWorktreeEntry[]> {
  const r = await git(['worktree', 'list', '--porcelain'], { ...ctx, cwd });
  return parseWorktreeList(r.stdout);
}
