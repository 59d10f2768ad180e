// @worker-thread-only (test/layering.test.ts: the only place synchronous fs calls are allowed)
// The file walk behind glob, grep and list_dir. It runs inside the search worker
// thread (search-worker.ts), never on the extension host's loop, which is why it
// may use the synchronous fs calls: they are the fastest way through 20 000 files
// and they block nobody but the worker.
//
// Rules (docs/tools.md): `.gitignore` files (root, nested, `.git/info/exclude`) are
// respected; `.git`, and the team's own `.team`, `.tasks` and `.worktrees` folders are
// skipped; symbolic links to folders are not entered (no loops, no escapes); a
// symbolic link to a file is followed only when its real path stays inside the root;
// folders that cannot be read are counted and named, never fatal.
import { readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Skipped wherever they occur below the starting folder. */
export const SKIPPED_DIRS = new Set(['.git', '.team', '.tasks', '.worktrees']);

export interface WalkStats {
  dirs: number;
  files: number;
  ignored: number;
  unreadable: string[];
  unreadableCount: number;
}

export interface WalkEntry {
  /** Path relative to the root, with `/` separators. */
  rel: string;
  abs: string;
  dirent: Dirent;
  /** For a symbolic link to a file inside the root: the file's real path, relative to the root. */
  real?: string;
}

interface Layer {
  /** Folder of the .gitignore, relative to the root ('' for the root). */
  base: string;
  ig: Ignore;
}

const MAX_UNREADABLE_NAMED = 5;

export class Walker {
  readonly stats: WalkStats = { dirs: 0, files: 0, ignored: 0, unreadable: [], unreadableCount: 0 };
  private stopped = false;

  constructor(private readonly root: string, private readonly useGitignore = true) {}

  stop(): void {
    this.stopped = true;
  }

  /**
   * Calls `onFile` for every file under `startRel` (a folder relative to the root), in
   * sorted order; `enterDir` may prune folders (glob bases). Stops when `stop()` is called.
   */
  walk(startRel: string, onFile: (e: WalkEntry) => void, enterDir?: (rel: string) => boolean): void {
    const layers = this.ancestorLayers(startRel);
    this.dir(startRel, layers, onFile, enterDir);
  }

  /** Entries of one folder (not recursive), gitignored ones left out and counted. */
  list(rel: string): WalkEntry[] {
    const entries = this.read(rel) ?? [];
    const own = this.layerFor(rel, entries);
    const all = own ? [...this.ancestorLayers(rel), own] : this.ancestorLayers(rel);
    return entries.flatMap((d) => {
      const e = this.entry(rel, d);
      if (this.isIgnored(e.rel, d.isDirectory(), all)) {
        this.stats.ignored++;
        return [];
      }
      return [e];
    });
  }

  private dir(rel: string, layers: Layer[], onFile: (e: WalkEntry) => void, enterDir?: (rel: string) => boolean): void {
    if (this.stopped) return;
    const entries = this.read(rel);
    if (!entries) return;
    this.stats.dirs++;
    const own = this.layerFor(rel, entries);
    const all = own ? [...layers, own] : layers;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of entries) {
      if (this.stopped) return;
      const e = this.entry(rel, d);
      if (d.isDirectory()) {
        if (SKIPPED_DIRS.has(d.name)) continue;
        if (this.isIgnored(e.rel, true, all)) { this.stats.ignored++; continue; }
        if (!enterDir || enterDir(e.rel)) this.dir(e.rel, all, onFile, enterDir);
      } else if (d.isFile() || (d.isSymbolicLink() && (e.real = this.linkedFileInside(e.abs)) !== undefined)) {
        if (this.isIgnored(e.rel, false, all)) { this.stats.ignored++; continue; }
        this.stats.files++;
        onFile(e);
      }
    }
  }

  private entry(rel: string, d: Dirent): WalkEntry {
    const r = rel ? `${rel}/${d.name}` : d.name;
    return { rel: r, abs: path.join(this.root, r), dirent: d };
  }

  private read(rel: string): Dirent[] | undefined {
    try {
      return readdirSync(path.join(this.root, rel), { withFileTypes: true });
    } catch (e) {
      this.stats.unreadableCount++;
      if (this.stats.unreadable.length < MAX_UNREADABLE_NAMED) {
        this.stats.unreadable.push(`${rel || '.'} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      return undefined;
    }
  }

  /** The real path (relative to the root) of a symbolic link to a file inside the root, else undefined. */
  linkedFileInside(abs: string): string | undefined {
    try {
      const real = realpathSync(abs);
      const r = path.relative(this.root, real);
      return !r.startsWith('..') && !path.isAbsolute(r) && statSync(real).isFile() ? r.split(path.sep).join('/') : undefined;
    } catch {
      return undefined;
    }
  }

  /** The .gitignore layers that apply to `rel` from the folders above it (and the root). */
  private ancestorLayers(rel: string): Layer[] {
    if (!this.useGitignore) return [];
    const layers: Layer[] = [];
    const exclude = this.readIgnoreFile(path.join(this.root, '.git', 'info', 'exclude'));
    if (exclude) layers.push({ base: '', ig: exclude });
    const segs = rel ? rel.split('/') : [];
    for (let i = 0; i < segs.length; i++) {
      const base = segs.slice(0, i).join('/');
      const ig = this.readIgnoreFile(path.join(this.root, base, '.gitignore'));
      if (ig) layers.push({ base, ig });
    }
    return layers;
  }

  private layerFor(rel: string, entries: Dirent[]): Layer | undefined {
    if (!this.useGitignore || !entries.some((d) => d.name === '.gitignore')) return undefined;
    const ig = this.readIgnoreFile(path.join(this.root, rel, '.gitignore'));
    return ig ? { base: rel, ig } : undefined;
  }

  private readIgnoreFile(file: string): Ignore | undefined {
    try {
      const text = readFileSync(file, 'utf8');
      return ignore({ allowRelativePaths: true }).add(text);
    } catch {
      return undefined;
    }
  }

  /** Deeper .gitignore files override shallower ones, as in git (a `!name` there re-includes). */
  private isIgnored(rel: string, isDir: boolean, layers: Layer[]): boolean {
    let ignored = false;
    for (const l of layers) {
      const sub = l.base ? rel.slice(l.base.length + 1) : rel;
      const r = l.ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}
