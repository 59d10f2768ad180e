// The host's unix sockets out of a sandboxed command's reach (docs/security.md "sockets").
// A socket connects through a read-only mount (connect needs no write to the file system),
// and some run commands outside: code-server's and VS Code's IPC sockets under the home
// folder, Docker Desktop's in `~/.docker`, ssh's ControlMaster sockets in `~/.ssh`. `/tmp` and
// `/run` are the sandbox's own already (bwrap.ts); every other socket the host has bound is
// found in /proc/net/unix and covered before the command starts: its folder by an empty one
// (so a socket made there later is covered too), or, where the command needs that folder (the
// workspace, a folder above it, the home folder itself), the socket alone by an empty file.
import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isInside } from '../exec/confine';

/** Folders the sandbox replaces whole (bwrap.ts): a socket in them is not the host's inside. */
const REPLACED = ['/tmp', '/run', '/dev', '/proc', '/sys'];

export interface SocketCovers {
  /** Folders holding host sockets: an empty read-only folder is mounted over each. */
  dirs: string[];
  /** Host sockets in folders the command needs: an empty read-only file is mounted over each. */
  files: string[];
}

/** `/proc/net/unix` row: `Num RefCount Protocol Flags Type St Inode Path` (the path may hold spaces; absent for unbound sockets). */
const ROW = /^\s*\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.+)$/;

/**
 * Paths of the unix sockets bound in this machine's network namespace, their folders
 * resolved (`/var/run` is `/run`). Abstract sockets (`@…`) belong to a network namespace,
 * and a command has its own; a socket bound by a relative path cannot be placed.
 */
export async function hostSockets(): Promise<string[]> {
  const text = await readFile('/proc/net/unix', 'utf8').catch(() => '');
  const paths = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const p = ROW.exec(line)?.[1];
    if (p?.startsWith('/')) paths.add(p);
  }
  const dirs = new Map<string, Promise<string | null>>();
  const real = await Promise.all([...paths].map(async (p) => {
    const d = dirname(p);
    if (!dirs.has(d)) dirs.set(d, realpath(d).catch(() => null));
    const dir = await dirs.get(d)!;
    return dir ? join(dir, basename(p)) : null;
  }));
  return [...new Set(real.filter((p): p is string => p !== null))];
}

/**
 * How to cover `sockets` (real paths) for a command whose binds are `bound` (the policy's
 * folders, seen inside at their own paths), whose home folder is `home`, and for which
 * `hidden` paths are covered already (Read deny rules).
 */
export function socketCovers(sockets: readonly string[], bound: readonly string[], home: string, hidden: readonly string[]): SocketCovers {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const s of sockets) {
    if (hidden.some((h) => isInside(h, s))) continue;
    const inBound = bound.some((b) => isInside(b, s));
    if (!inBound && REPLACED.some((r) => isInside(r, s))) continue;
    const dir = dirname(s);
    const needed = inBound || [...bound, home].some((k) => isInside(dir, k));
    (needed ? files : dirs).add(needed ? s : dir);
  }
  // A folder inside another covered one, or a socket in one, is covered with it.
  const top = [...dirs].filter((d) => ![...dirs].some((o) => o !== d && isInside(o, d))).sort();
  return { dirs: top, files: [...files].filter((f) => !top.some((d) => isInside(d, f))).sort() };
}
