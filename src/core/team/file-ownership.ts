// File ownership (docs/file-formats.md, "Tasks"; README "File ownership"): a task's `files`
// globs name what it may change. While it is in progress, nobody else's file-tool edit to a
// covered file goes through, and no second task whose globs may meet its globs can be claimed.
// Globs are workspace-relative and matched with the permission rules' matcher (path-glob.ts).
//
// Whether two globs can match a common path is decided conservatively — "maybe" unless
// provably not — segment by segment: the segments before the first `**` must be pairwise
// compatible from the start, those after the last `**` from the end, and a glob without `**`
// fixes the path's length. Two segments are incompatible when both are literal and differ,
// when one is literal and the other does not match it, or when both are wildcards whose
// literal prefixes (up to the first `*`/`?`) or suffixes (after the last) disagree. Anything
// the check cannot see through (braces, classes, extglobs) counts as overlapping. So
// `src/a/**` and `src/b/**` are disjoint, `src/**/*.ts` and `src/**/*.md` too, while
// `src/**` and `**/*.ts` overlap.
import type { Task } from '../../shared/schemas';
import { globMatcher } from '../permissions/path-glob';
import { TaskError } from './task-rules';

const WILD = /[*?[\]{}()!+@]/;
const OPAQUE = /[[\]{}()!+@]/;

/** `./src/` → `src/**`; refuses absolute paths and `..`, which could never name a workspace file. */
export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (!g) throw new TaskError('files: an empty glob');
  if (g.startsWith('/') || /^[A-Za-z]:/.test(g)) throw new TaskError(`files: "${glob}" is absolute; globs are relative to the workspace`);
  if (g.split('/').includes('..')) throw new TaskError(`files: "${glob}" leaves the workspace ("..")`);
  if (g.endsWith('/')) g = `${g}**`;
  return g;
}

export function normalizeGlobs(globs: readonly string[] | null | undefined): string[] | undefined {
  if (!globs?.length) return undefined;
  return [...new Set(globs.map(normalizeGlob))];
}

function prefix(s: string): string {
  const i = s.search(/[*?]/);
  return i < 0 ? s : s.slice(0, i);
}

function suffix(s: string): string {
  const i = Math.max(s.lastIndexOf('*'), s.lastIndexOf('?'));
  return s.slice(i + 1);
}

function segmentsMayMeet(x: string, y: string): boolean {
  if (x === '**' || y === '**') return true;
  const wx = WILD.test(x);
  const wy = WILD.test(y);
  if (!wx && !wy) return x === y;
  if (!wx) return globMatcher(y)(x);
  if (!wy) return globMatcher(x)(y);
  if (OPAQUE.test(x) || OPAQUE.test(y)) return true;
  const [px, py, sx, sy] = [prefix(x), prefix(y), suffix(x), suffix(y)];
  return (px.startsWith(py) || py.startsWith(px)) && (sx.endsWith(sy) || sy.endsWith(sx));
}

const head = (s: string[]): string[] => (s.includes('**') ? s.slice(0, s.indexOf('**')) : s);
const tail = (s: string[]): string[] => (s.includes('**') ? s.slice(s.lastIndexOf('**') + 1) : s);

/** False only when no path can match both globs (see the header). */
export function globsMayOverlap(a: string, b: string): boolean {
  const A = a.split('/');
  const B = b.split('/');
  const fixedA = !A.includes('**');
  const fixedB = !B.includes('**');
  if (fixedA && fixedB) return A.length === B.length && A.every((s, i) => segmentsMayMeet(s, B[i]!));
  const [hA, hB, tA, tB] = [head(A), head(B), tail(A), tail(B)];
  for (let i = 0; i < Math.min(hA.length, hB.length); i++) if (!segmentsMayMeet(hA[i]!, hB[i]!)) return false;
  for (let i = 1; i <= Math.min(tA.length, tB.length); i++) if (!segmentsMayMeet(tA[tA.length - i]!, tB[tB.length - i]!)) return false;
  if (fixedA && A.length < hB.length + tB.length) return false;
  if (fixedB && B.length < hA.length + tA.length) return false;
  return true;
}

/** The first pair of globs, one from each set, that may cover a common file; null when none. */
export function overlappingPair(a: readonly string[], b: readonly string[]): [string, string] | null {
  for (const x of a) for (const y of b) if (globsMayOverlap(x, y)) return [x, y];
  return null;
}

const describe = (t: Task): string => `#${t.id} "${t.subject}" (${t.owner || 'unowned'})`;

/** Why `task` cannot go in progress now (its files meet an in-progress task's), or null. */
export function claimOverlap(task: Task, board: readonly Task[]): string | null {
  if (!task.files?.length) return null;
  for (const other of board) {
    if (other.id === task.id || other.status !== 'in_progress' || !other.files?.length) continue;
    const pair = overlappingPair(task.files, other.files);
    if (pair) return `task ${task.id}'s files may overlap those of in-progress task ${describe(other)}: ${pair[0]} and ${pair[1]}; wait until it is completed`;
  }
  return null;
}

/** The in-progress task of someone other than `agent` whose files cover `relPath`, if any. */
export function ownedElsewhere(board: readonly Task[], relPath: string, agent: string): Task | undefined {
  return board.find((t) => t.status === 'in_progress' && t.owner && t.owner !== agent && t.files?.some((g) => globMatcher(g)(relPath)));
}

export function ownershipRefusal(t: Task, relPath: string): string {
  return `${relPath} belongs to ${t.owner}'s task #${t.id} "${t.subject}" while it is in progress (its files: ${t.files!.join(', ')}); ask ${t.owner} or the lead instead of editing it`;
}
