// Git-ignored files in a worktree's checkout (`.env`, build output): removing or keeping the
// worktree deletes the checkout and them with it, and git does not count them as changes.
// They are listed — large folders summarised with a file count — and the operation refuses
// unless forced (docs/file-formats.md, "Worktrees").
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WorktreeError } from './errors';
import { git, type GitEnvOptions } from './git';

/** A folder with more files than this is named with its count, not listed file by file. */
const LIST_FOLDER_UP_TO = 20;
/** Counting stops here ("10000+ files"): a summary, not an inventory. */
const COUNT_CAP = 10_000;

export interface IgnoredEntry {
  /** Path relative to the checkout; folders end with `/`. */
  path: string;
  /** Files under a summarised folder. */
  files?: number;
  capped?: boolean;
}

async function countFiles(dir: string, budget: { left: number }): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (budget.left <= 0) return;
    if (e.isDirectory()) await countFiles(join(dir, e.name), budget);
    else budget.left--;
  }
}

/** Ignored files and folders in the checkout at `cwd`, folders over 20 files summarised. */
export async function ignoredEntries(cwd: string, ctx: GitEnvOptions): Promise<IgnoredEntry[]> {
  const r = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
    ...ctx, cwd, allowFail: true, extraEnv: { GIT_OPTIONAL_LOCKS: '0' },
  });
  if (r.code !== 0) return [];
  const out: IgnoredEntry[] = [];
  for (const path of r.stdout.split('\0').filter(Boolean)) {
    if (!path.endsWith('/')) {
      out.push({ path });
      continue;
    }
    const budget = { left: COUNT_CAP };
    await countFiles(join(cwd, path), budget);
    const files = COUNT_CAP - budget.left;
    if (files > LIST_FOLDER_UP_TO || budget.left <= 0) {
      out.push({ path, files, ...(budget.left <= 0 ? { capped: true } : {}) });
      continue;
    }
    const inner = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', path], {
      ...ctx, cwd, allowFail: true, extraEnv: { GIT_OPTIONAL_LOCKS: '0' },
    });
    const listed = inner.stdout.split('\0').filter(Boolean);
    if (listed.length) for (const p of listed) out.push({ path: p });
    else out.push({ path, files });
  }
  return out;
}

/**
 * Leaves out what the worktree setup copied in (`copied`, relative to the workspace folder at
 * `subdir` of the checkout): copies of the main checkout's files, not the teammate's work.
 */
export function withoutCopied(entries: IgnoredEntry[], copied: readonly string[] | undefined, subdir: string): IgnoredEntry[] {
  if (!copied?.length) return entries;
  const ours = copied.map((p) => (subdir ? `${subdir}/${p}` : p));
  return entries.filter((e) => {
    const p = e.path.replace(/\/$/, '');
    return !ours.some((c) => p === c || p.startsWith(`${c}/`));
  });
}

/**
 * What tools make and make again, never a teammate's work: dependencies (`node_modules/`) and
 * caches (`.cache/`, `__pycache__/`, `.pytest_cache/`, `.mypy_cache/`, `.ruff_cache/`,
 * `.eslintcache`, `*.tsbuildinfo`). ava and xo write `node_modules/.cache/` into a checkout
 * whose tests ran, which kept every landed worktree of a bridge run.
 */
const REGENERABLE = /(^|\/)(node_modules|\.cache|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache)(\/|$)|(^|\/)\.eslintcache$|\.tsbuildinfo$/;

/** Leaves out what tools make again (REGENERABLE): for the removal after a landing (worktree-tidy.ts). */
export function withoutRegenerable(entries: IgnoredEntry[]): IgnoredEntry[] {
  return entries.filter((e) => !REGENERABLE.test(e.path));
}

export function describeIgnored(entries: readonly IgnoredEntry[], max = 8): string {
  const words = entries.map((e) => (e.files !== undefined ? `${e.path} (${e.files}${e.capped ? '+' : ''} files)` : e.path));
  const shown = words.slice(0, max).join(', ');
  return words.length > max ? `${shown} and ${words.length - max} more` : shown;
}

/** Throws WorktreeError('ignored-files') listing what `verb` would delete. */
export function refuseIgnored(entries: readonly IgnoredEntry[], name: string, verb: string, advice: string): void {
  if (!entries.length) return;
  throw new WorktreeError(
    'ignored-files',
    `${verb} worktree "${name}" would delete git-ignored files in its checkout: ${describeIgnored(entries)}; ${advice}`,
    entries.map((e) => e.path),
  );
}
