// The mount points made on the host for guards while sandboxed commands run (docs/security.md,
// "The policy table"): an empty folder where an absent control folder is guarded, an empty
// file saying nothing where an absent git-folder file (`commondir`, `packed-refs`…) is covered. Counted per
// path across every command of this process, and removed when the last command using one
// ends — a file only while it is still the empty one made here (host git may have written a
// real one meanwhile).
import { constants } from 'node:fs';
import { lstat, open, rm, rmdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { GIT_FOLDER } from './policy';

const inUse = new Map<string, { n: number; ino?: number; size?: number }>();

/**
 * Makes each absent cover file (never following a link), counting it in use. Returns those
 * that exist now, to be bound read-only; a path that cannot be made is left out.
 */
export async function takeCovers(files: readonly string[]): Promise<string[]> {
  const made = await Promise.all(files.map(async (f) => {
    const held = inUse.get(f);
    if (held) { held.n++; return f; }
    const fh = await open(f, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o444).catch(() => null);
    if (fh) {
      const content = GIT_FOLDER.coverFiles[basename(f)] ?? '';
      await fh.writeFile(content);
      const { ino, size } = await fh.stat();
      await fh.close();
      inUse.set(f, { n: 1, ino, size });
      return f;
    }
    // Someone made it since the policy was computed: a real file, bound read-only as it is.
    const st = await lstat(f).catch(() => null);
    if (!st?.isFile()) return null;
    inUse.set(f, { n: 1 });
    return f;
  }));
  return made.filter((f): f is string => f !== null);
}

/** Counts each guard folder in use (bwrap makes the mount point). */
export function takeGuards(dirs: readonly string[]): void {
  for (const d of dirs) {
    const held = inUse.get(d);
    if (held) held.n++;
    else inUse.set(d, { n: 1 });
  }
}

/** Releases covers and guards; the last user removes what was made for them. */
export async function releaseAll(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map(async (p) => {
    const held = inUse.get(p);
    if (!held) return;
    if (--held.n > 0) return;
    inUse.delete(p);
    const st = await lstat(p).catch(() => null);
    if (!st) return;
    if (st.isDirectory()) await rmdir(p).catch(() => undefined); // only while empty
    else if (st.isFile() && held.ino !== undefined && st.ino === held.ino && st.size === held.size) await rm(p, { force: true }).catch(() => undefined);
  }));
}
