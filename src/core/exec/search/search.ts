// list_dir, glob and grep for the agents (docs/tools.md): confined to the workspace by
// real path, .gitignore respected, output capped with counts of what was left out. The
// work happens in a worker thread (search-worker.ts) under a time budget, so neither a
// huge tree nor a catastrophic regular expression can stall the extension host.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { WorkspaceFsError, type WorkspaceFs } from '../workspace-fs';
import type { GrepMatch, LinkInfo, SearchReply, SearchRequest, SearchTotals } from './protocol';
import type { WalkStats } from './walk';

export const DEFAULT_MAX_RESULTS = 100;
export const MAX_RESULTS_LIMIT = 1000;
export const GLOB_MAX_RESULTS = 500;
export const LIST_MAX_ENTRIES = 500;
/** Larger files are not searched (a 1 GB log would take the whole budget); they are named. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
export const DEFAULT_TIME_BUDGET_MS = 20_000;
/** The model sees at most this much of one answer. */
const MAX_OUTPUT_CHARS = 30_000;
/** Beyond the worker's own deadline: how long a regex stuck in one line may keep it. */
const HARD_STOP_GRACE_MS = 1_000;
const IDLE_WORKERS = 2;

export interface SearchContext {
  fs: Pick<WorkspaceFs, 'resolve'>;
  signal?: AbortSignal;
  timeBudgetMs?: number;
  maxFileBytes?: number;
  /** Paths (relative to the root) the agent may not read, e.g. by a `Read(.env)` deny rule. */
  hidden?: (rel: string) => boolean;
  /** Paths whose contents only read_file may show, after asking (a `Read(…)` ask rule): grep leaves their lines out. */
  askFirst?: (rel: string) => boolean;
  /**
   * What Read rules say of a file found through a symbolic link (its real path) or with more
   * than one hard link (its identity); set when Read deny or ask rules exist.
   */
  linkVerdict?: (link: LinkInfo) => Promise<ReadVerdict>;
}

type ReadVerdict = 'deny' | 'ask' | undefined;

/** The strongest of Read verdicts: deny, then ask. */
export function strongest(...v: ReadVerdict[]): ReadVerdict {
  return v.includes('deny') ? 'deny' : v.includes('ask') ? 'ask' : undefined;
}

/** Read rules' verdict on each found path: by its name, its real path and its identity. */
async function verdicts(ctx: SearchContext, rels: string[], links: Record<string, LinkInfo>): Promise<Map<string, ReadVerdict>> {
  const out = new Map<string, ReadVerdict>();
  for (const rel of new Set(rels)) {
    const byName: ReadVerdict = ctx.hidden?.(rel) ? 'deny' : ctx.askFirst?.(rel) ? 'ask' : undefined;
    const link = links[rel];
    out.set(rel, byName === 'deny' || !link || !ctx.linkVerdict ? byName : strongest(byName, await ctx.linkVerdict(link)));
  }
  return out;
}

interface Outcome<T> {
  items: T[];
  /** Links among the items sent (when asked for: `identify`). */
  links: Record<string, LinkInfo>;
  totals: SearchTotals;
  stats?: WalkStats;
  /** Ended by the time budget while a regular expression was still running. */
  killed: boolean;
}

export async function grep(ctx: SearchContext, input: { pattern: string; path?: string | null; glob?: string | null; ignore_case?: boolean | null; max_results?: number | null }): Promise<string> {
  const flags = input.ignore_case ? 'i' : '';
  try {
    new RegExp(input.pattern, flags);
  } catch (e) {
    throw new WorkspaceFsError('invalid_input', `invalid regular expression: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
  if (input.glob) checkGlob(input.glob, 'glob');
  const where = await place(ctx.fs, input.path, true);
  const max = Math.min(Math.max(1, input.max_results ?? DEFAULT_MAX_RESULTS), MAX_RESULTS_LIMIT);
  const budget = ctx.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const out = await runInWorker<GrepMatch>({
    op: 'grep', root: where.root, start: where.start, source: input.pattern, flags, glob: where.file ? null : input.glob ?? null,
    only: where.file, maxResults: max, maxFileBytes: ctx.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, deadline: Date.now() + budget, identify: !!ctx.linkVerdict,
  }, budget, ctx.signal);
  const v = await verdicts(ctx, out.items.map((m) => m.file), out.links);
  const denied = out.items.filter((m) => v.get(m.file) === 'deny').length;
  const asked = out.items.filter((m) => v.get(m.file) === 'ask');
  const visible = out.items.filter((m) => !v.get(m.file));
  const lines = visible.map((m) => `${m.file}:${m.line}:${m.text}`);
  const hiddenCount = out.items.length - visible.length;
  const shown = capLines(lines);
  const notes: string[] = [];
  const t = out.totals;
  if (!t.found && !out.killed) notes.push(`No matches for /${input.pattern}/${flags} in ${t.searched} files${where.label}.`);
  if (shown.length < t.found - hiddenCount) {
    notes.push(`[Showing ${shown.length} of ${t.found} matches in ${t.filesWithMatches} files; ${t.found - hiddenCount - shown.length} not shown. Narrow the pattern, path or glob, or raise max_results (up to ${MAX_RESULTS_LIMIT}).]`);
  }
  if (denied) notes.push(`${denied} match${denied === 1 ? '' : 'es'} in files your Read rules deny ${denied === 1 ? 'was' : 'were'} left out.`);
  if (asked.length) {
    const files = [...new Set(asked.map((m) => m.file))];
    notes.push(`${asked.length} match${asked.length === 1 ? '' : 'es'} in files your Read rules ask about ${asked.length === 1 ? 'was' : 'were'} left out (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}); read_file asks the user for them.`);
  }
  notes.push(...walkNotes(out, budget, 'search'));
  if (t.found) notes.push(`Searched ${t.searched} file${t.searched === 1 ? '' : 's'}${where.label}.`);
  return [...shown, ...(shown.length ? [''] : []), ...notes].join('\n').trim();
}

export async function glob(ctx: SearchContext, input: { pattern: string; path?: string | null }): Promise<string> {
  checkGlob(input.pattern, 'pattern');
  const where = await place(ctx.fs, input.path, false);
  const budget = ctx.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const out = await runInWorker<string>({
    op: 'glob', root: where.root, start: where.start, pattern: input.pattern.replace(/^\.\//, ''), maxResults: GLOB_MAX_RESULTS, deadline: Date.now() + budget,
    identify: !!ctx.linkVerdict,
  }, budget, ctx.signal);
  const v = await verdicts(ctx, out.items, out.links);
  const visible = out.items.filter((p) => v.get(p) !== 'deny');
  const shown = capLines(visible);
  const notes: string[] = [];
  if (!out.totals.found) {
    notes.push(`No files match ${input.pattern}${where.label}.${input.pattern.includes('/') ? '' : ` A pattern without "/" matches only directly inside the folder; use **/${input.pattern} to look in subfolders.`}`);
  }
  if (shown.length < out.totals.found) notes.push(`[Showing ${shown.length} of ${out.totals.found} paths; ${out.totals.found - shown.length} not shown. Narrow the pattern or path.]`);
  notes.push(...walkNotes(out, budget, 'listing'));
  return [...shown, ...(shown.length && notes.length ? [''] : []), ...notes].join('\n').trim();
}

export async function listDir(ctx: SearchContext, input: { path?: string | null }): Promise<string> {
  const where = await place(ctx.fs, input.path, false);
  const budget = ctx.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const out = await runInWorker<string>({ op: 'list', root: where.root, start: where.start, maxResults: LIST_MAX_ENTRIES, deadline: Date.now() + budget, identify: !!ctx.linkVerdict }, budget, ctx.signal);
  const prefix = where.start ? `${where.start}/` : '';
  const relOf = (n: string) => prefix + n.replace(/[/@]$/, '');
  const v = await verdicts(ctx, out.items.map(relOf), out.links);
  const visible = out.items.filter((n) => v.get(relOf(n)) !== 'deny');
  // Folders first, then files, each alphabetically.
  visible.sort((a, b) => Number(!a.endsWith('/')) - Number(!b.endsWith('/')) || (a < b ? -1 : a > b ? 1 : 0));
  const notes: string[] = [];
  if (!out.totals.found && !out.stats?.ignored) notes.push(`${where.start || '.'} is empty.`);
  if (visible.length < out.totals.found) notes.push(`[Showing ${visible.length} of ${out.totals.found} entries.]`);
  notes.push(...walkNotes(out, budget, 'listing'));
  return [`${where.start || '.'}/`, ...visible.map((n) => `  ${n}`), ...notes].join('\n');
}

/**
 * The device:inode of every file under `bases` that Read `rules` deny or ask about (paths
 * judged relative to `root`), and whether the walk saw everything (it stops after `maxFiles`
 * files or the time budget).
 */
export async function readIdentities(root: string, bases: string[], rules: { deny: string[]; ask: string[] }, maxFiles: number, budgetMs = DEFAULT_TIME_BUDGET_MS): Promise<{ ids: Map<string, 'deny' | 'ask'>; complete: boolean }> {
  const out = await runInWorker<string>({ op: 'identities', root, bases, rules, maxFiles, maxResults: Number.MAX_SAFE_INTEGER, deadline: Date.now() + budgetMs }, budgetMs);
  const ids = new Map<string, 'deny' | 'ask'>();
  for (const item of out.items) {
    const [id, verdict] = item.split(' ') as [string, 'deny' | 'ask'];
    if (ids.get(id) !== 'deny') ids.set(id, verdict);
  }
  return { ids, complete: !out.killed && !out.totals.timedOut };
}

/** Globs stay inside the folder searched: no absolute paths, no `..`. */
function checkGlob(pattern: string, field: string): void {
  if (!pattern.trim()) throw new WorkspaceFsError('invalid_input', `${field} is empty`);
  if (path.isAbsolute(pattern) || /^[A-Za-z]:/.test(pattern) || pattern.startsWith('~')) {
    throw new WorkspaceFsError('outside_root', `${field} ${JSON.stringify(pattern)} is absolute; patterns are relative to the folder searched (pass path to choose the folder)`);
  }
  if (pattern.split(/[\\/]/).includes('..')) {
    throw new WorkspaceFsError('outside_root', `${field} ${JSON.stringify(pattern)} climbs out with ".."; searches stay inside the workspace`);
  }
}

interface Place {
  root: string;
  /** Folder to walk, relative to the root ('' = the root). */
  start: string;
  /** Set when `path` names one file (grep only). */
  file: string | null;
  label: string;
}

async function place(fs: Pick<WorkspaceFs, 'resolve'>, userPath: string | null | undefined, fileOk: boolean): Promise<Place> {
  const root = await fs.resolve('.');
  const abs = await fs.resolve(userPath || '.');
  const rel = path.relative(root, abs).split(path.sep).join('/');
  const st = await stat(abs).catch((e: NodeJS.ErrnoException) => {
    throw new WorkspaceFsError(e.code === 'ENOENT' ? 'not_found' : 'io', `${JSON.stringify(userPath)}: ${e.code === 'ENOENT' ? 'no such file or folder' : e.message}`);
  });
  const label = rel ? ` under ${rel}` : '';
  if (st.isDirectory()) return { root, start: rel, file: null, label };
  if (fileOk && st.isFile()) return { root, start: path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel), file: rel, label: ` in ${rel}` };
  throw new WorkspaceFsError('not_a_file', `${JSON.stringify(userPath)} is not a folder`);
}

function capLines(lines: string[]): string[] {
  let size = 0;
  const out: string[] = [];
  for (const l of lines) {
    size += l.length + 1;
    if (size > MAX_OUTPUT_CHARS) break;
    out.push(l);
  }
  return out;
}

function walkNotes(out: Outcome<unknown>, budgetMs: number, what: string): string[] {
  const notes: string[] = [];
  const t = out.totals;
  if (out.killed) {
    notes.push(`The ${what} was stopped after ${budgetMs / 1000} s: the regular expression is too slow (catastrophic backtracking?). Results above are what was found until then; simplify the pattern.`);
  } else if (t.timedOut) notes.push(`The ${what} was stopped after ${budgetMs / 1000} s; results are incomplete. Narrow the path.`);
  if (t.binary) notes.push(`Skipped ${t.binary} binary file${t.binary === 1 ? '' : 's'}.`);
  if (t.tooLargeCount) notes.push(`Skipped ${t.tooLargeCount} file${t.tooLargeCount === 1 ? '' : 's'} too large to search: ${t.tooLarge.join(', ')}${t.tooLargeCount > t.tooLarge.length ? ', …' : ''}.`);
  if (t.unreadableFileCount) notes.push(`${t.unreadableFileCount} file${t.unreadableFileCount === 1 ? '' : 's'} could not be read: ${t.unreadableFiles.join(', ')}${t.unreadableFileCount > t.unreadableFiles.length ? ', …' : ''}.`);
  const s = out.stats;
  if (s?.unreadableCount) notes.push(`${s.unreadableCount} folder${s.unreadableCount === 1 ? '' : 's'} could not be read: ${s.unreadable.join(', ')}${s.unreadableCount > s.unreadable.length ? ', …' : ''}.`);
  return notes;
}

// ---- the worker pool -------------------------------------------------------------

const idle: Worker[] = [];

/** Next to this module in out/ (tests) and next to the bundle in dist/ (esbuild.mjs). */
export function workerScript(): string {
  return path.join(__dirname, 'search-worker.js');
}

function acquire(): Worker {
  const w = idle.pop() ?? new Worker(workerScript());
  w.ref();
  return w;
}

function release(w: Worker): void {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
  if (idle.length < IDLE_WORKERS) {
    w.unref(); // an idle worker never keeps a CLI process alive
    idle.push(w);
  } else void w.terminate();
}

function runInWorker<T>(req: SearchRequest, budgetMs: number, signal?: AbortSignal): Promise<Outcome<T>> {
  if (signal?.aborted) return Promise.reject(new Error('stopped'));
  const w = acquire();
  const items: T[] = [];
  const links: Record<string, LinkInfo> = {};
  return new Promise<Outcome<T>>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (keep) release(w);
      else {
        w.removeAllListeners();
        void w.terminate();
      }
      fn();
    };
    const partial = (): SearchTotals => ({ found: items.length, filesWithMatches: new Set(items.map((i) => (i as GrepMatch).file)).size, searched: 0, binary: 0, tooLarge: [], tooLargeCount: 0, unreadableFiles: [], unreadableFileCount: 0, timedOut: true });
    const timer = setTimeout(() => finish(() => resolve({ items, links, totals: partial(), killed: true }), false), budgetMs + HARD_STOP_GRACE_MS);
    const onAbort = () => finish(() => reject(new Error('stopped')), false);
    signal?.addEventListener('abort', onAbort, { once: true });
    w.on('message', (m: SearchReply) => {
      if (m.type === 'items') {
        items.push(...(m.items as T[]));
        if (m.links) Object.assign(links, m.links);
      } else if (m.type === 'done') finish(() => resolve({ items, links, totals: m.totals, stats: m.stats, killed: false }), true);
      else finish(() => reject(new Error(m.message)), true);
    });
    w.on('error', (e) => finish(() => reject(e), false));
    w.on('exit', (code) => finish(() => reject(new Error(`search worker exited (${code})`)), false));
    w.postMessage(req);
  });
}
