// What a teammate changed that the main checkout's branch does not have yet: committed work
// since the merge base (what was merged already is not shown again) and, while the checkout
// exists, uncommitted and untracked files too — the reviewer sees what is left to merge.
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { WorktreeError } from './errors';
import { git, splitZ, type GitEnvOptions } from './git';
import { branchExists, dirtyFiles } from './repo';
import type { WorktreeRecord } from './store';

export type FileChange = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed' | 'unmerged' | 'unknown';

export interface DiffFile {
  /** Path relative to the repository root (the new path for a rename). */
  path: string;
  change: FileChange;
  /** Source path of a rename or copy. */
  from?: string;
}

export interface WorktreeDiff {
  name: string;
  branch: string;
  baseCommit: string;
  /**
   * Where the diff starts: the merge base of the branch and the main checkout's HEAD, so what
   * was merged already is not shown again (the base commit when they share no history).
   */
  mergeBase: string;
  /** Tip of the branch (uncommitted changes come on top of it). */
  headCommit: string;
  /** Unified diff from the base commit to the worktree's current state. */
  text: string;
  files: DiffFile[];
  /** Files in `text` that are not committed yet; merge/keep need a commit message for them. */
  uncommitted: string[];
}

// Fixed flags so a user's diff config (colour, external diff tools) cannot change the output.
const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '-M'];

const CHANGES: Record<string, FileChange> = {
  A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type-changed', U: 'unmerged',
};

/** Parses `git diff --name-status -z`. */
export function parseNameStatus(out: string): DiffFile[] {
  const parts = splitZ(out);
  const files: DiffFile[] = [];
  for (let i = 0; i < parts.length; i++) {
    const letter = (parts[i] ?? '').charAt(0);
    const change = CHANGES[letter] ?? 'unknown';
    if (letter === 'R' || letter === 'C') {
      files.push({ path: parts[i + 2] ?? '', change, from: parts[i + 1] ?? '' });
      i += 2;
    } else {
      files.push({ path: parts[i + 1] ?? '', change });
      i += 1;
    }
  }
  return files;
}

export async function diffRecord(root: string, rec: WorktreeRecord, checkout: string | undefined, ctx: GitEnvOptions): Promise<WorktreeDiff> {
  if (!(await branchExists(root, rec.branch, ctx))) {
    throw new WorktreeError('branch-missing', `branch ${rec.branch} of worktree "${rec.name}" no longer exists`);
  }
  const cwd = checkout ?? root;
  const headCommit = (await git(['rev-parse', rec.branch], { ...ctx, cwd })).stdout.trim();
  const uncommitted = checkout ? await dirtyFiles(checkout, ctx, true) : [];
  const found = await git(['merge-base', 'HEAD', rec.branch], { ...ctx, cwd: root, allowFail: true });
  const mergeBase = found.code === 0 && found.stdout.trim() ? found.stdout.trim() : rec.baseCommit;
  const base = { name: rec.name, branch: rec.branch, baseCommit: rec.baseCommit, mergeBase, headCommit, uncommitted };
  if (!uncommitted.length) {
    const range = [mergeBase, rec.branch];
    return { ...base, ...(await diffWith(cwd, ctx, range, undefined)) };
  }
  // Stage the worktree into a private copy of its index: untracked files show up in the
  // diff, and the teammate's real index is never touched.
  const tmp = await mkdtemp(join(tmpdir(), 'agent-teams-diff-'));
  try {
    const indexRel = (await git(['rev-parse', '--git-path', 'index'], { ...ctx, cwd })).stdout.trim();
    const indexFile = join(tmp, 'index');
    const realIndex = isAbsolute(indexRel) ? indexRel : resolve(cwd, indexRel);
    await copyFile(realIndex, indexFile);
    // The copy keeps the index's own mtime: git re-reads a file whose mtime is not older than
    // the index's ("racily clean"). With a fresh mtime, a same-size file rewritten within the
    // second of the checkout looked unchanged and was missing from the diff.
    const st = await stat(realIndex);
    await utimes(indexFile, st.atime, st.mtime);
    const extraEnv = { GIT_INDEX_FILE: indexFile };
    await git(['add', '-A'], { ...ctx, cwd, extraEnv });
    return { ...base, ...(await diffWith(cwd, ctx, ['--cached', mergeBase], extraEnv)) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function diffWith(cwd: string, ctx: GitEnvOptions, range: string[], extraEnv: Record<string, string> | undefined) {
  const [text, names] = await Promise.all([
    git(['diff', ...DIFF_FLAGS, ...range, '--'], { ...ctx, cwd, extraEnv }),
    git(['diff', ...DIFF_FLAGS, '--name-status', '-z', ...range, '--'], { ...ctx, cwd, extraEnv }),
  ]);
  return { text: text.stdout, files: parseNameStatus(names.stdout) };
}
