// Path containment for the file tools. Containment is decided on real paths
// (symlinks resolved), never on the string the model typed, and with
// path.relative rather than a prefix test: `/w/rootX` is not inside `/w/root`.
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Symlink hops allowed while resolving a path that does not fully exist (as ELOOP). */
const MAX_LINK_HOPS = 40;

/** True when `p` is `root` or below it; both must be absolute and normalised. */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * realpath() for a path whose last components may not exist yet (a file about to
 * be written): the deepest existing ancestor is resolved and the missing names
 * are appended. A dangling symlink on the way is followed by hand, because
 * realpath reports it as missing and a write through it would land wherever it
 * points.
 */
export async function realpathAllowMissing(p: string): Promise<string> {
  const missing: string[] = [];
  let cur = path.resolve(p);
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(cur);
      return missing.length ? path.join(real, ...missing.reverse()) : real;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw e;
    }
    const st = await lstat(cur).catch(() => undefined);
    if (st?.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' });
      // Relative targets are relative to the link's real directory, not the typed one.
      cur = path.resolve(await realpath(path.dirname(cur)), await readlink(cur));
      continue;
    }
    const parent = path.dirname(cur);
    if (parent === cur) throw Object.assign(new Error('no existing ancestor'), { code: 'ENOENT' });
    missing.push(path.basename(cur));
    cur = parent;
  }
}
