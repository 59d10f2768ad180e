// Change notification for the team's directories, shared by every subscriber in a process:
// one OS watch per directory however many listeners it has (docs/file-formats.md, "Change
// notification"). fs.watch (inotify) sees writes from any process within milliseconds; a
// slow stat poll runs beside it only as a fallback for filesystems where watching is unreliable.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

type Listener = (filename: string) => void;

interface DirEntry {
  watcher: FSWatcher | null;
  listeners: Set<Listener>;
  poll: NodeJS.Timeout | null;
  sizes: Map<string, string>;
  files: Set<string>;
  /** A folder not there yet: its parent's watch, waiting for it to appear. */
  waiting: Disposable | null;
  /** The folder watched (device:inode): a folder removed and made again is watched again. */
  id: string | undefined;
  closed: boolean;
}

export interface Disposable {
  dispose(): void;
}

export interface WatchDirOptions {
  /** Create the folder if missing (default). False: wait for it to appear (watching its parent). */
  create?: boolean;
}

export class DirWatcher {
  private dirs = new Map<string, DirEntry>();

  /** @param pollMs fallback poll interval for files named in `watchFile` calls. */
  constructor(private readonly pollMs = 5000) {}

  /** Folders with an OS watch open now (one per folder, whatever the number of listeners). */
  get watched(): string[] {
    return [...this.dirs].filter(([, e]) => e.watcher).map(([d]) => d);
  }

  /** Calls `listener(filename)` for any change in `dir` (created if missing, unless `create: false`). */
  async watchDir(dir: string, listener: Listener, pollFiles: string[] = [], opts: WatchDirOptions = {}): Promise<Disposable> {
    if (opts.create !== false) await mkdir(dir, { recursive: true });
    let entry = this.dirs.get(dir);
    if (!entry) {
      entry = { watcher: null, listeners: new Set(), poll: null, sizes: new Map(), files: new Set(), waiting: null, id: undefined, closed: false };
      this.dirs.set(dir, entry);
      const e = entry;
      await this.arm(dir, e);
      e.poll = setInterval(() => void this.pollDir(dir, e), this.pollMs);
      e.poll.unref();
    }
    entry.listeners.add(listener);
    for (const f of pollFiles) entry.files.add(f);
    const e = entry;
    return {
      dispose: () => {
        e.listeners.delete(listener);
        if (e.listeners.size === 0) this.closeDir(dir, e);
      },
    };
  }

  /** Opens the OS watch; a missing folder is waited for through its parent's watch. */
  private async arm(dir: string, e: DirEntry): Promise<boolean> {
    try {
      e.watcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename) for (const l of e.listeners) l(filename.toString());
      });
      e.watcher.on('error', () => {
        e.watcher?.close();
        e.watcher = null;
      });
      e.id = undefined;
      void stat(dir).then((st) => { e.id ??= folderId(st); }, () => undefined);
      return true;
    } catch (err) {
      e.watcher = null;
      const parent = dirname(dir);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir || e.waiting) return false;
      const name = basename(dir);
      const waiting = await this.watchDir(parent, (f) => {
        if (f === name && !e.watcher && !e.closed) void this.appeared(dir, e);
      }, [], { create: false });
      if (e.closed || e.watcher) waiting.dispose();
      else {
        e.waiting = waiting;
        // Created between the failed watch and the parent's: not reported by the parent.
        if (await stat(dir).then((st) => st.isDirectory(), () => false)) void this.appeared(dir, e);
      }
      return false;
    }
  }

  /** The folder was created: watch it, and report what was written in it before the watch. */
  private async appeared(dir: string, e: DirEntry): Promise<void> {
    if (e.watcher || e.closed) return;
    if (!(await this.arm(dir, e))) return; // gone again: still waiting
    e.waiting?.dispose();
    e.waiting = null;
    for (const f of await readdir(dir).catch(() => [] as string[])) for (const l of e.listeners) l(f);
  }

  private async pollDir(dir: string, e: DirEntry): Promise<void> {
    // A watched folder removed (and perhaps made again) leaves its watch on the old one: start over.
    if (e.watcher && e.id !== undefined) {
      const st = await stat(dir).catch(() => null);
      if (e.watcher && !e.closed && (st ? folderId(st) : 'gone') !== e.id) {
        e.watcher.close();
        e.watcher = null;
        await this.appeared(dir, e);
      }
    }
    for (const f of e.files) {
      const s = await stat(join(dir, f)).catch(() => null);
      const sig = s ? `${s.size}:${s.mtimeMs}:${s.ino}` : 'missing';
      const before = e.sizes.get(f);
      e.sizes.set(f, sig);
      if (before !== undefined && before !== sig) for (const l of e.listeners) l(f);
    }
  }

  private closeDir(dir: string, e: DirEntry): void {
    e.closed = true;
    e.watcher?.close();
    e.watcher = null;
    e.waiting?.dispose();
    e.waiting = null;
    if (e.poll) clearInterval(e.poll);
    if (this.dirs.get(dir) === e) this.dirs.delete(dir);
  }

  dispose(): void {
    for (const [dir, e] of this.dirs) this.closeDir(dir, e);
  }
}

const folderId = (st: { dev: number; ino: number }): string => `${st.dev}:${st.ino}`;
