// Change notification for the team's directories, shared by every subscriber in a process.
// fs.watch (inotify) sees writes from any process within milliseconds; a slow stat poll
// runs beside it only as a fallback for filesystems where watching is unreliable.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

type Listener = (filename: string) => void;

interface DirEntry {
  watcher: FSWatcher | null;
  listeners: Set<Listener>;
  poll: NodeJS.Timeout | null;
  sizes: Map<string, string>;
  files: Set<string>;
}

export interface Disposable {
  dispose(): void;
}

export class DirWatcher {
  private dirs = new Map<string, DirEntry>();

  /** @param pollMs fallback poll interval for files named in `watchFile` calls. */
  constructor(private readonly pollMs = 5000) {}

  /** Calls `listener(filename)` for any change in `dir` (created if missing). */
  async watchDir(dir: string, listener: Listener, pollFiles: string[] = []): Promise<Disposable> {
    await mkdir(dir, { recursive: true });
    let entry = this.dirs.get(dir);
    if (!entry) {
      entry = { watcher: null, listeners: new Set(), poll: null, sizes: new Map(), files: new Set() };
      this.dirs.set(dir, entry);
      const e = entry;
      try {
        e.watcher = watch(dir, { persistent: false }, (_event, filename) => {
          if (filename) for (const l of e.listeners) l(filename.toString());
        });
        e.watcher.on('error', () => {
          e.watcher?.close();
          e.watcher = null;
        });
      } catch {
        e.watcher = null;
      }
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

  private async pollDir(dir: string, e: DirEntry): Promise<void> {
    for (const f of e.files) {
      const s = await stat(join(dir, f)).catch(() => null);
      const sig = s ? `${s.size}:${s.mtimeMs}:${s.ino}` : 'missing';
      const before = e.sizes.get(f);
      e.sizes.set(f, sig);
      if (before !== undefined && before !== sig) for (const l of e.listeners) l(f);
    }
  }

  private closeDir(dir: string, e: DirEntry): void {
    e.watcher?.close();
    if (e.poll) clearInterval(e.poll);
    this.dirs.delete(dir);
  }

  dispose(): void {
    for (const [dir, e] of this.dirs) this.closeDir(dir, e);
  }
}
