// Bringing files a checkout lacks (`.env`, `node_modules`) from the main checkout into a new
// worktree: `copy` globs of the worktree setup (setup-config.ts, docs/file-formats.md).
//
// Copies, never links. A worktree's `node_modules` is changed in place by the teammate
// (`npm install`, build caches under node_modules/.cache, postinstall output): a symbolic or
// hard link would carry that change into the main checkout and every other worktree. So
// each entry is cloned copy-on-write where the file system can (GNU `cp --reflink=auto` on
// Linux: btrfs, XFS, bcachefs; Node's fs.cp with COPYFILE_FICLONE elsewhere: APFS
// clonefile), and copied byte for byte where it cannot (ext4). Links inside are copied as
// links, never followed: nothing outside the workspace is read or written.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { cp, lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

// Required, not imported: the bundles are CommonJS, and an import would pick the package's ES
// module build, whose directory crawler needs import.meta (undefined in a CommonJS bundle).
type Tinyglobby = typeof import('tinyglobby');
let tinyglobby: Tinyglobby | undefined;

/** Team and git folders are never brought over (.worktrees would copy the checkouts into themselves). */
const NEVER = ['.git', '.team', '.tasks', '.worktrees'];

export interface CopyReport {
  /** Paths brought over, relative to the workspace folder. */
  copied: string[];
  /** Left alone: already in the checkout (the branch's own file wins). */
  skipped: string[];
  /** What went wrong, one line each. */
  problems: string[];
  ms: number;
}

/** Why `pattern` is refused, or null: only relative globs that stay inside the workspace. */
export function badCopyGlob(pattern: string): string | null {
  if (isAbsolute(pattern) || /^[a-zA-Z]:[\\/]/.test(pattern) || pattern.startsWith('~')) return `"${pattern}" is not relative to the workspace`;
  if (pattern.split(/[\\/]+/).some((s) => s === '..')) return `"${pattern}" leaves the workspace (..)`;
  const first = pattern.split(/[\\/]+/).find((s) => s !== '.' && s !== '') ?? '';
  if (NEVER.includes(first)) return `"${pattern}" names ${first}, which is never copied`;
  return null;
}

/** Matches of `patterns` under `from`: files, folders and links, outermost only, sorted. */
export async function copyMatches(from: string, patterns: string[]): Promise<string[]> {
  tinyglobby ??= require('tinyglobby') as Tinyglobby;
  const found = await tinyglobby.glob(patterns, {
    cwd: from, onlyFiles: false, dot: true, followSymbolicLinks: false, expandDirectories: false,
    ignore: NEVER.flatMap((d) => [d, `${d}/**`, `**/${d}`, `**/${d}/**`]),
  });
  const rels = [...new Set(found.map((p) => p.replace(/\/+$/, '')))].filter(Boolean).sort();
  // A folder that matched is copied whole: what matched inside it comes with it.
  return rels.filter((p, i) => !rels.slice(0, i).some((q) => p.startsWith(`${q}/`)));
}

function inside(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/** GNU cp: native speed, copy-on-write where the file system has it; false when cp is not GNU's. */
function gnuCopy(src: string, dst: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Not -a: the owner is ours anyway and extended attributes are rarely wanted; mode and
    // timestamps are kept (bench/README.md, worktree.create_copy).
    execFile('cp', ['-R', '-P', '--preserve=mode,timestamps', '--reflink=auto', '-T', '--', src, dst], { timeout: timeoutMs, signal, windowsHide: true }, (err, _out, stderr) => {
      if (!err) return resolve(true);
      const e = err as NodeJS.ErrnoException & { killed?: boolean };
      if (e.code === 'ENOENT' || /unrecognized option|illegal option|invalid option/i.test(String(stderr))) return resolve(false);
      reject(new Error(e.killed || e.name === 'AbortError' ? `not finished within ${Math.round(timeoutMs / 1000)} s` : String(stderr).trim() || e.message));
    });
  });
}

async function copyOne(src: string, dst: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (process.platform === 'linux' && (await gnuCopy(src, dst, timeoutMs, signal))) return;
  await cp(src, dst, {
    recursive: true, verbatimSymlinks: true, preserveTimestamps: true, errorOnExist: true, force: false, mode: constants.COPYFILE_FICLONE,
  });
}

/**
 * Copies each match of `patterns` in the workspace folder `from` to the same place under the
 * checkout's folder `to`. Never throws: refused globs and failed copies are problems, and a
 * half-made copy is removed.
 */
export async function copyIntoWorktree(from: string, to: string, patterns: string[], timeoutMs: number, signal?: AbortSignal): Promise<CopyReport> {
  const started = performance.now();
  const report: CopyReport = { copied: [], skipped: [], problems: [], ms: 0 };
  const good = patterns.filter((p) => {
    const why = badCopyGlob(p);
    if (why) report.problems.push(`copy ${why}; skipped`);
    return !why;
  });
  const matches = good.length ? await copyMatches(from, good).catch((e: Error) => (report.problems.push(`copy: ${e.message}`), [])) : [];
  const realTo = await realpath(to).catch((e: Error) => (report.problems.push(`copy: ${e.message}`), null));
  if (!realTo) return { ...report, ms: Math.round(performance.now() - started) };
  const deadline = Date.now() + timeoutMs;
  for (const rel of matches) {
    const dst = join(to, rel);
    if (await lstat(dst).then(() => true, () => false)) {
      report.skipped.push(rel);
      continue;
    }
    let started = false;
    try {
      await mkdir(dirname(dst), { recursive: true });
      // A link committed on the branch where the main checkout has a folder must not lead the copy out.
      if (!inside(realTo, await realpath(dirname(dst)))) throw new Error(`${dirname(rel)} leads outside the worktree`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`not copied: the copy took longer than ${Math.round(timeoutMs / 1000)} s`);
      started = true;
      await copyOne(join(from, rel), dst, left, signal);
      report.copied.push(rel);
    } catch (e) {
      // Only what this copy made is removed (the path was free before it started).
      if (started) await rm(dst, { recursive: true, force: true }).catch(() => undefined);
      report.problems.push(`copy ${rel.split(sep).join('/')}: ${(e as Error).message}`);
    }
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
