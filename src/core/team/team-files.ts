// The team's one change feed (docs/file-formats.md, "Change notification"): every view —
// trees, inbox, transcript panels, the Changes view, MCP servers — hears of a change to a
// team file from here, through the team's one DirWatcher, so a process opens one OS watch
// per team folder however many views and panels follow it. Which file is which kind is
// written once, in ROUTES.
import { NAME_RE } from '../util/names';
import type { DirWatcher, Disposable } from './dir-watcher';
import type { TeamPaths } from './paths';

/**
 * What changed. `roster` … `queue` are the team's state (Team.subscribe); `transcripts`,
 * `changes` and `inbox` name the agent whose file it was; `worktrees` is the worktree index or
 * its event log; `mcp` is `.mcp.json`; `layout`: `.team` or `.tasks` appeared or went.
 */
export type FileKind = 'roster' | 'queue' | 'inbox' | 'requests' | 'tasks' | 'transcripts' | 'changes' | 'worktrees' | 'mcp' | 'layout';

export interface FileEvent {
  kind: FileKind;
  /** The file's name in its folder. */
  file: string;
  /** inbox, transcripts, changes: whose file (a participant name). */
  name?: string;
}

interface Route {
  dir: (p: TeamPaths) => string;
  /** The kinds its files can be. */
  kinds: FileKind[];
  /** The kind of a file of this folder, or null for files no view follows. */
  kind: (file: string) => FileKind | null;
  /** Files also polled (slowly) where file watching is unreliable. */
  poll?: string[];
  /** Folders the team's `init` creates; the others are waited for, never created by watching. */
  create: boolean;
}

const jsonl = (file: string): string | undefined => {
  const name = file.endsWith('.jsonl') ? file.slice(0, -'.jsonl'.length) : '';
  return NAME_RE.test(name) ? name : undefined;
};

/** Each watched folder once, and the kinds of its files. */
const ROUTES: Route[] = [
  {
    dir: (p) => p.teamDir, kinds: ['roster', 'queue'], create: true, poll: ['config.json', 'merge-queue.json'],
    kind: (f) => (f === 'config.json' ? 'roster' : f === 'merge-queue.json' ? 'queue' : null),
  },
  { dir: (p) => p.inboxDir, kinds: ['inbox'], create: true, kind: (f) => (f.endsWith('.jsonl') ? 'inbox' : null) },
  { dir: (p) => p.requestsDir, kinds: ['requests'], create: true, kind: (f) => (/\.json$/.test(f) ? 'requests' : null) },
  // The board's change record (.generation) is written after the task files it names: a
  // reader woken by it sees the change (task-board.ts); one woken by a task file may not yet.
  { dir: (p) => p.tasksDir, kinds: ['tasks'], create: true, kind: (f) => (/^task_\d+\.json$/.test(f) || f === '.generation' ? 'tasks' : null) },
  { dir: (p) => p.transcriptsDir, kinds: ['transcripts'], create: false, kind: (f) => (jsonl(f) ? 'transcripts' : null) },
  { dir: (p) => p.changesDir, kinds: ['changes'], create: false, kind: (f) => (f.endsWith('.jsonl') ? 'changes' : null) },
  { dir: (p) => p.worktreesDir, kinds: ['worktrees'], create: false, kind: (f) => (f === 'index.json' || f === 'events.jsonl' ? 'worktrees' : null) },
  {
    dir: (p) => p.root, kinds: ['mcp', 'layout'], create: false,
    kind: (f) => (f === '.mcp.json' ? 'mcp' : f === '.team' || f === '.tasks' ? 'layout' : null),
  },
];

export class TeamFiles {
  constructor(private readonly paths: TeamPaths, private readonly watcher: DirWatcher) {}

  /**
   * Calls `listener` for each change to a file of one of `kinds`, written by this process or
   * another. Only the folders those kinds live in are watched; a folder not created yet
   * (changes, worktrees) is watched once it appears.
   */
  async on(kinds: readonly FileKind[], listener: (e: FileEvent) => void): Promise<Disposable> {
    const want = new Set(kinds);
    const routes = ROUTES.filter((r) => r.kinds.some((k) => want.has(k)));
    const subs = await Promise.all(routes.map((r) => this.watcher.watchDir(r.dir(this.paths), (file) => {
      const kind = r.kind(file);
      if (!kind || !want.has(kind)) return;
      const name = kind === 'inbox' || kind === 'transcripts' || kind === 'changes' ? jsonl(file) : undefined;
      listener(name ? { kind, file, name } : { kind, file });
    }, r.poll ?? [], { create: r.create })));
    return { dispose: () => subs.forEach((s) => s.dispose()) };
  }
}
