// The git steps of one merge-queue entry (docs/file-formats.md, "Merge queue"), each one git
// process through the product's one runner (worktree/git.ts). The merge is computed without
// touching any checkout (`git merge-tree --write-tree`, then `git commit-tree`), so the user's
// checkout never holds a half-merge; landing is a fast-forward of the checked-out branch to
// the tested merge commit (`git merge --ff-only`), done only while the user's tree is clean.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlChange, Failure } from '../../shared/schemas/merge-queue';
import { fileList, WorktreeError } from '../worktree/errors';
import { firstLines, git, identityArgs, splitZ } from '../worktree/git';
import { repoInfo, resolveCommit, type RepoInfo } from '../worktree/repo';

/** What a run of the queue asks once: where the repository is, and how to make commits as `git commit` would. */
export interface RepoFacts extends RepoInfo {
  identity: string[];
  sign: boolean;
}

export async function repoFacts(root: string): Promise<RepoFacts> {
  const [info, identity, sign] = await Promise.all([
    repoInfo(root, {}), identityArgs(root, {}),
    // commit-tree does not read commit.gpgSign itself.
    git(['config', '--type=bool', '--get', 'commit.gpgsign'], { cwd: root, allowFail: true }),
  ]);
  return { ...info, identity, sign: sign.stdout.trim() === 'true' };
}

const exists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

export interface HeadState {
  /** The checked-out branch (null: detached HEAD) and its commit (null before the first). */
  branch: string | null;
  oid: string | null;
  /** Tracked files with uncommitted changes. */
  dirty: string[];
  /** Why the checkout cannot take a merge now (mid-rebase, mid-merge, detached HEAD), or null. */
  busy: string | null;
}

/** The user's checkout as one `git status` and its git folder tell it. */
export async function headState(p: RepoInfo): Promise<HeadState> {
  const r = await git(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=no'], {
    cwd: p.toplevel, extraEnv: { GIT_OPTIONAL_LOCKS: '0' }, // do not fight the user's git for index.lock
  });
  let [branch, oid]: (string | null)[] = [null, null];
  const dirty: string[] = [];
  const parts = splitZ(r.stdout);
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!;
    if (line.startsWith('# branch.oid ')) oid = /^[0-9a-f]+$/.test(line.slice(13)) ? line.slice(13) : null;
    else if (line.startsWith('# branch.head ')) branch = line.slice(14) === '(detached)' ? null : line.slice(14);
    else if (/^[12u] /.test(line)) dirty.push(line.split(' ').slice({ 1: 8, 2: 9, u: 10 }[line[0] as '1' | '2' | 'u']).join(' '));
    if (line.startsWith('2 ')) i++; // the rename's source follows
  }
  let busy: string | null = null;
  if ((await exists(join(p.gitDir, 'rebase-merge'))) || (await exists(join(p.gitDir, 'rebase-apply')))) {
    busy = 'the workspace repository is in the middle of a rebase; finish it (git rebase --continue) or abort it (git rebase --abort) first';
  } else if (await exists(join(p.gitDir, 'MERGE_HEAD'))) busy = 'a merge is in progress in the workspace; finish or abort it first';
  else if (!branch) busy = 'the workspace is not on a branch (detached HEAD); check out the branch to merge into first';
  return { branch, oid, dirty, busy };
}

export type MergeResult =
  | { kind: 'merged'; commit: string; tree: string }
  | { kind: 'conflict'; files: string[]; failure: Failure };

/** The merge commit of `branch` onto `base` (--no-ff: one commit per hand-in, revertible as a unit), made in the object store only. */
export async function mergeCommit(p: RepoFacts, base: string, branch: string, message: string): Promise<MergeResult> {
  const g = { cwd: p.toplevel, allowFail: true };
  // The branch's tip, read once: the merge and the commit's second parent are the same commit.
  const tip = await resolveCommit(p.toplevel, `refs/heads/${branch}`, {});
  if (!tip) throw new WorktreeError('merge-failed', `branch ${branch} no longer exists`);
  const t = await git(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', base, tip], g);
  const out = splitZ(t.stdout);
  if (t.code === 1) {
    const files = [...new Set(out.slice(1))];
    // The other side's commits (subject lines, authors) that changed the files since the branch forked.
    const log = await git(['log', '-n', '10', '--format=%h%x1f%an%x1f%s', base, `^${tip}`, '--', ...files.map((f) => `:(top,literal)${f}`)], g);
    const theirs = log.stdout.split('\n').filter(Boolean).map((l) => {
      const [commit = '', author = '', subject = ''] = l.split('\x1f');
      return { commit, author, subject };
    });
    return { kind: 'conflict', files, failure: { step: 'merge', fault: 'branch', why: 'the branch and the workspace branch changed the same lines', theirs } };
  }
  if (t.code !== 0 || !out[0]) throw new WorktreeError('merge-failed', `git merge-tree failed: ${firstLines(t.stderr || t.stdout)} (the merge queue needs git 2.38 or later)`);
  const c = await git([...p.identity, 'commit-tree', ...(p.sign ? ['-S'] : []), out[0], '-p', base, '-p', tip, '-m', message], g);
  if (c.code !== 0) throw new WorktreeError('merge-failed', `git commit-tree failed: ${firstLines(c.stderr)}`);
  return { kind: 'merged', commit: c.stdout.trim(), tree: out[0] };
}

/** Each file `tree` changes against `base`, with its new blob and mode (oid null: deleted); none: the branch was already part of `base`. */
export async function changedFiles(top: string, base: string, tree: string): Promise<ControlChange[]> {
  // Raw format: ":<mode> <mode> <old> <new> <status>\0<path>\0".
  const parts = splitZ((await git(['diff-tree', '-r', '--no-renames', '-z', base, tree, '--'], { cwd: top })).stdout);
  const out: ControlChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [, mode, , oid, status] = parts[i]!.split(' ');
    out.push(status === 'D' ? { path: parts[i + 1]!, oid: null } : { path: parts[i + 1]!, oid: oid!, mode: mode! });
  }
  return out;
}

/** landed; wait: the workspace cannot be updated now (the entry waits with the reason); moved: the branch moved, merge and test again. */
export type LandResult = { kind: 'landed' } | { kind: 'moved' } | { kind: 'wait'; reason: string };

/** Why the checkout in state `s` cannot be fast-forwarded from `base` on `into` now, or null. */
function held(s: HeadState, into: string, base: string): LandResult | null {
  if (s.busy) return { kind: 'wait', reason: s.busy };
  if (s.branch !== into || s.oid !== base) return { kind: 'moved' };
  if (s.dirty.length) return { kind: 'wait', reason: `the workspace has uncommitted changes (${fileList(s.dirty)}); it lands by itself once they are committed or stashed` };
  return null;
}

/**
 * Advances branch `into` from `base` to `commit` and brings the user's files along, only if
 * `into` is still checked out at `base` and nothing of the user's is in the way.
 */
export async function land(p: RepoInfo, into: string, base: string, commit: string): Promise<LandResult> {
  const before = held(await headState(p), into, base);
  if (before) return before;
  // A fast-forward moves the branch only from a commit the merge contains — `base`, as just
  // seen — so a commit made meanwhile is never dropped, and it brings index and files along
  // first, refusing to overwrite anything (an untracked file where the merge adds one
  // included). The queue's own merge commit: no signature check.
  const r = await git(['merge', '--ff-only', '--quiet', '--no-stat', '--no-autostash', '--no-verify-signatures', commit], {
    cwd: p.toplevel, allowFail: true, extraEnv: { GIT_REFLOG_ACTION: 'agent-teams merge queue' },
  });
  if (r.code === 0) return { kind: 'landed' };
  // The user's git got there first (a commit, a checkout, an edit, its index lock), or a file of theirs is in the way.
  return held(await headState(p), into, base)
    ?? { kind: 'wait', reason: `the workspace could not be brought to the merge (${firstLines(r.stderr) || `git merge exit ${r.code}`}); it lands by itself once that is resolved` };
}
