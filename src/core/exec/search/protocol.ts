// Messages between search.ts (the extension host side) and search-worker.ts.
import type { WalkStats } from './walk';

export type SearchRequest =
  | { op: 'grep'; root: string; start: string; source: string; flags: string; glob: string | null; only: string | null; maxResults: number; maxFileBytes: number; deadline: number }
  | { op: 'glob'; root: string; start: string; pattern: string; maxResults: number; deadline: number }
  | { op: 'list'; root: string; start: string; maxResults: number; deadline: number };

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
  | { type: 'items'; items: Array<GrepMatch | string> }
  | { type: 'done'; totals: SearchTotals; stats: WalkStats }
  | { type: 'error'; message: string };
