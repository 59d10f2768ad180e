// Messages between search.ts (the extension host side) and search-worker.ts.
import type { WalkStats } from './walk';

/**
 * How a file found may be another file under another name, for Read rules
 * (docs/permissions.md): `real` is its real path (relative to the root) when it was reached
 * through a symbolic link, `id` its device:inode when it has more than one hard link.
 */
export interface LinkInfo {
  real?: string;
  id?: string;
}

export type SearchRequest =
  | { op: 'grep'; root: string; start: string; source: string; flags: string; glob: string | null; only: string | null; maxResults: number; maxFileBytes: number; deadline: number; identify?: boolean }
  | { op: 'glob'; root: string; start: string; pattern: string; maxResults: number; deadline: number; identify?: boolean }
  | { op: 'list'; root: string; start: string; maxResults: number; deadline: number; identify?: boolean }
  /**
   * The device:inode of every file under `bases` that Read `rules` deny or ask about, as
   * items `"<dev>:<ino> deny|ask"` (paths judged relative to `root`).
   */
  | { op: 'identities'; root: string; bases: string[]; rules: { deny: string[]; ask: string[] }; maxFiles: number; maxResults: number; deadline: number };

export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

export interface SearchTotals {
  /** Matches (grep) or paths (glob, list) found, shown or not. */
  found: number;
  /** Files that held at least one match (grep). */
  filesWithMatches: number;
  searched: number;
  binary: number;
  tooLarge: string[];
  tooLargeCount: number;
  /** Files grep could not open (no permission…), the first few named with the error code. */
  unreadableFiles: string[];
  unreadableFileCount: number;
  /** The worker's own deadline passed: what was found so far. */
  timedOut: boolean;
}

export type SearchReply =
  | { type: 'items'; items: Array<GrepMatch | string>; links?: Record<string, LinkInfo> }
  | { type: 'done'; totals: SearchTotals; stats: WalkStats }
  | { type: 'error'; message: string };
