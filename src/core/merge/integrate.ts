// The git steps of one merge-queue entry (docs/file-formats.md, "Merge queue"), each one git
// process through the product's one runner (worktree/git.ts). The merge is computed without
// touching any checkout (`git merge-tree --write-tree`, then `git commit-tree`), so the user's
// checkout never holds a half-merge; landing is a fast-forward of the checked-out branch to
// the tested merge commit (`git merge --ff-only`), done only while the user's tree is clean.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileList, WorktreeError } from '../worktree/errors';
import { firstLines, git, splitZ, type GitEnvOptions } from '../worktree/git';

export interface RepoPaths {
  top: string;
  /** The workspace folder inside the repository ('' at its root). */
  subdir: string;
  /** This checkout's git dir (where MERGE_HEAD and rebase state live). */
  gitDir: string;
}

export async function repoPaths(root: string, ctx: GitEnvOptions): Promise<RepoPaths> {
  const out = (await git(['rev-parse', '--show-toplevel', '--show-prefix', '--absolute-git-dir'], { ...ctx, cwd: root })).stdout;
  const [top = '', prefix = '', gitDir = ''] = out.split('\n');
  return { top, subdir: prefix.replace(/\/+$/, ''), gitDir };
}

const exists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

/** Why the workspace cannot take a merge now (mid-rebase, mid-merge, detached HEAD), or null. */
export async function busyReason(gitDir: string, branch: string | null): Promise<string | null> {
  if ((await exists(join(gitDir, 'rebase-merge'))) || (await exists(join(gitDir, 'rebase-apply')))) {
    return 'the workspace repository is in the middle of a rebase; finish it (git rebase --continue) or abort it (git rebase --abort) first';
  }
  if (await exists(join(gitDir, 'MERGE_HEAD'))) return 'a merge is in progress in the workspace; finish or abort it first';
  if (!branch) return 'the workspace is not on a branch (detached HEAD); check out the branch to merge into first';
  return null;
}

/** The branch HEAD names in `gitDir` (its HEAD file, as gitrepository-layout(5) has it), null when detached. */
export async function headBranch(gitDir: string): Promise<string | null> {
  const head = await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '');
  return /^ref: refs\/heads\/(.+?)\s*$/.exec(head)?.[1] ?? null;
}

export interface HeadState {
  /** The checked-out branch, null when HEAD is detached. */
  branch: string | null;
  /** Its commit, null before the first one. */
  oid: string | null;
  /** Tracked files with uncommitted changes. */
  dirty: string[];
  busy: string | null;
}

/** Branch, commit, dirty tracked files and rebase/merge state of the user's checkout: one `git status`. */
export async function headState(p: RepoPaths, ctx: GitEnvOptions): Promise<HeadState> {
  const r = await git(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=no'], {
    ...ctx, cwd: p.top, extraEnv: { GIT_OPTIONAL_LOCKS: '0' }, // do not fight the user's git for index.lock
  });
  let [branch, oid]: (string | null)[] = [null, null];
  const dirty: string[] = [];
  const parts = splitZ(r.stdout);
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!;
    if (line.startsWith('# branch.oid ')) oid = /^[0-9a-f]+$/.test(line.slice(13)) ? line.slice(13) : null;
    else if (line.startsWith('# branch.head ')) branch = line.slice(14) === '(detached)' ? null : line.slice(14);
    else if (line.startsWith('1 ')) dirty.push(line.split(' ').slice(8).join(' '));
    else if (line.startsWith('2 ')) { dirty.push(line.split(' ').slice(9).join(' ')); i++; } // the rename's source follows
    else if (line.startsWith('u ')) dirty.push(line.split(' ').slice(10).join(' '));
  }
  return { branch, oid, dirty, busy: await busyReason(p.gitDir, branch) };
}

/** What a run of the queue needs to make commits as `git commit` would: identity fallbacks and signing, asked once (one process). */
export interface CommitFacts {
  identity: string[];
  sign: boolean;
}

export async function commitFacts(top: string, ctx: GitEnvOptions): Promise<CommitFacts> {
  const r = await git(['config', '--get-regexp', '^(user\\.name|user\\.email|commit\\.gpgsign)$'], { ...ctx, cwd: top, allowFail: true });
  const v = new Map(r.stdout.split('\n').filter(Boolean).map((l) => [l.split(' ')[0]!.toLowerCase(), l.slice(l.indexOf(' ') + 1)]));
  // A configured identity is never overridden; a fresh CI box or container must still be able to merge.
  const identity = [...(v.get('user.name') ? [] : ['-c', 'user.name=Agent Teams']), ...(v.get('user.email') ? [] : ['-c', 'user.email=agent-teams@localhost'])];
  // commit-tree does not read commit.gpgSign itself.
  return { identity, sign: /^(true|yes|on|1)$/i.test(v.get('commit.gpgsign') ?? '') };
}

export type MergeResult =
  | { kind: 'merged'; commit: string; tree: string; tip: string }
  | { kind: 'conflict'; files: string[]; tip: string };

/** The merge commit of `branch` onto `base` (--no-ff: one commit per hand-in, revertible as a unit), made in the object store only. */
export async function mergeCommit(top: string, base: string, branch: string, message: string, facts: CommitFacts, ctx: GitEnvOptions): Promise<MergeResult> {
  const g = { ...ctx, cwd: top, allowFail: true };
  // The branch's tip, read once: the merge and the commit's second parent are the same commit.
  const tip = (await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], g)).stdout.trim();
  if (!tip) throw new WorktreeError('merge-failed', `branch ${branch} no longer exists`);
  const t = await git(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', base, tip], g);
  const out = splitZ(t.stdout);
  if (t.code === 1) return { kind: 'conflict', files: [...new Set(out.slice(1))], tip };
  if (t.code !== 0 || !out[0]) throw new WorktreeError('merge-failed', `git merge-tree failed: ${firstLines(t.stderr || t.stdout)} (the merge queue needs git 2.38 or later)`);
  const tree = out[0];
  const c = await git([...facts.identity, 'commit-tree', ...(facts.sign ? ['-S'] : []), tree, '-p', base, '-p', tip, '-m', message], g);
  if (c.code !== 0) throw new WorktreeError('merge-failed', `git commit-tree failed: ${firstLines(c.stderr)}`);
  return { kind: 'merged', commit: c.stdout.trim(), tree, tip };
}

/** The files `tree` changes against `base`, and which of them it adds; none: the branch was already part of `base`. */
export async function changedFiles(top: string, base: string, tree: string, ctx: GitEnvOptions): Promise<{ files: string[]; added: string[] }> {
  const d = splitZ((await git(['diff-tree', '-r', '--name-status', '--no-renames', '-z', base, tree, '--'], { ...ctx, cwd: top })).stdout);
  const files: string[] = [];
  const added: string[] = [];
  for (let i = 0; i + 1 < d.length; i += 2) {
    files.push(d[i + 1]!);
    if (d[i] === 'A') added.push(d[i + 1]!);
  }
  return { files, added };
}

export type LandResult =
  | { kind: 'landed' }
  /** The workspace cannot be updated now; the entry waits with this reason. */
  | { kind: 'wait'; reason: string }
  /** The branch moved (a commit, another branch checked out): merge and test again. */
  | { kind: 'moved' };

/**
 * Advances branch `into` from `base` to `commit` and brings the user's files along, only if
 * `into` is still checked out at `base` and nothing of the user's is in the way.
 */
export async function land(p: RepoPaths, into: string, base: string, commit: string, added: readonly string[], ctx: GitEnvOptions): Promise<LandResult> {
  const s = await headState(p, ctx);
  if (s.busy) return { kind: 'wait', reason: s.busy };
  if (s.branch !== into || s.oid !== base) return { kind: 'moved' };
  if (s.dirty.length) {
    return { kind: 'wait', reason: `the workspace has uncommitted changes (${fileList(s.dirty)}); it lands by itself once they are committed or stashed` };
  }
  // Untracked files where the merge creates files: git would refuse to overwrite them.
  const inWay: string[] = [];
  for (const f of added) if (await exists(join(p.top, f))) inWay.push(f);
  if (inWay.length) {
    return { kind: 'wait', reason: `untracked files in the workspace are in the way of the merge (${fileList(inWay)}); it lands by itself once they are moved away` };
  }
  // A fast-forward moves the branch only from a commit the merge contains — `base`, as just
  // seen — so a commit made meanwhile is never dropped, and it brings index and files along
  // first, refusing to overwrite anything. The queue's own merge commit: no signature check.
  const r = await git(['merge', '--ff-only', '--quiet', '--no-stat', '--no-autostash', '--no-verify-signatures', commit], {
    ...ctx, cwd: p.top, allowFail: true, extraEnv: { GIT_REFLOG_ACTION: 'agent-teams merge queue' },
  });
  if (r.code === 0) return { kind: 'landed' };
  // The user's git got there first (a commit, a checkout, an edit, its index lock).
  const now = await headState(p, ctx);
  if (now.busy) return { kind: 'wait', reason: now.busy };
  if (now.branch !== into || now.oid !== base) return { kind: 'moved' };
  return { kind: 'wait', reason: `the workspace could not be brought to the merge (${firstLines(r.stderr) || `git merge exit ${r.code}`}); it is tried again shortly` };
}
