// The mount points made on the host for guards while sandboxed commands run (docs/security.md,
// "The policy table"): an empty folder where an absent control folder is guarded, an empty
// file saying nothing where an absent git-folder file (`commondir`, `packed-refs`…) is covered.
// Counted per path across every command of this process, and removed when the last command using one
// ends — a file only while it is still the empty one made here (host git may have written a
// real one meanwhile).
//
// Why counting is not enough: removing a folder or file that is a mount point in another
// command's namespace detaches that command's mount (Linux unmounts it lazily there), so a
// command whose policy saw another's guard as an existing path, and bound it read-only, would
// get its guard taken away — and could then write `.claude/settings.json` or `.git/commondir`.
// So a command counts every path of its policy that is one of ours, read-only ones included
// (`take`), and its policy is computed again if a removal started meanwhile (`quiet`/`unchangedSince`).
import { constants } from 'node:fs';
import { lstat, open, rm, rmdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { GIT_FOLDER } from './policy';

interface Entry {
  n: number;
  /** Set for a cover file made here: removed only while still this file. */
  ino?: number;
  size?: number;
  /** A cover file being made: whether it exists (to be bound) once settled. */
  made?: Promise<boolean>;
}

const inUse = new Map<string, Entry>();
const removing = new Set<Promise<void>>();
/** Counts removals started: a policy computed while it did not change saw no guard go. */
let epoch = 0;

/** The guard paths of one command's policy (fs-policy.ts). */
export interface GuardPlan {
  readOnly: readonly string[];
  /** Folders bound onto themselves (fs-policy.ts): counted like read-only paths. */
  pinned: readonly string[];
  guarded: readonly string[];
  coverFiles: readonly string[];
}

/** What a command holds until it ends; `covers`: the cover files to bind (those that exist). */
export interface Held {
  paths: string[];
  covers: Promise<string[]>;
}

/** Resolves once no removal is under way, with the mark to pass to `unchangedSince`. */
export async function quiet(): Promise<number> {
  while (removing.size) await Promise.all([...removing]);
  return epoch;
}

/** No removal started since `mark` and none runs: a policy computed since still holds. */
export function unchangedSince(mark: number): boolean {
  return epoch === mark && removing.size === 0;
}

/**
 * Counts the plan's guards, covers, and read-only paths that are ours (another command's
 * guard or cover) in use; makes each absent cover file (never following a link). Call it in
 * the same turn as `unchangedSince` returned true. A cover that cannot be made is left out.
 */
export function take(plan: GuardPlan): Held {
  const paths: string[] = [];
  for (const p of [...plan.readOnly, ...plan.pinned]) {
    const e = inUse.get(p);
    if (e) { e.n++; paths.push(p); }
  }
  for (const d of plan.guarded) {
    const e = inUse.get(d);
    if (e) e.n++;
    else inUse.set(d, { n: 1 });
    paths.push(d);
  }
  const covers = plan.coverFiles.map(async (f) => {
    let e = inUse.get(f);
    if (e) e.n++;
    else {
      e = { n: 1 };
      e.made = makeCover(f, e).catch(() => false);
      inUse.set(f, e);
    }
    paths.push(f);
    return (await (e.made ?? true)) ? f : null;
  });
  return { paths, covers: Promise.all(covers).then((c) => c.filter((f): f is string => f !== null)) };
}

async function makeCover(f: string, e: Entry): Promise<boolean> {
  const fh = await open(f, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o444).catch(() => null);
  if (fh) {
    try {
      await fh.writeFile(GIT_FOLDER.coverFiles[basename(f)] ?? '');
      const { ino, size } = await fh.stat();
      e.ino = ino;
      e.size = size;
    } finally {
      await fh.close();
    }
    return true;
  }
  // Someone made it since the policy was computed: a real file, bound read-only as it is (never removed).
  return (await lstat(f).catch(() => null))?.isFile() ?? false;
}

/** Releases what a command held; the last user removes what was made for it. */
export async function release(held: readonly string[]): Promise<void> {
  const started: Promise<void>[] = [];
  for (const p of held) {
    const e = inUse.get(p);
    if (!e || --e.n > 0) continue;
    inUse.delete(p);
    epoch++;
    const r = remove(p, e);
    removing.add(r);
    void r.finally(() => removing.delete(r));
    started.push(r);
  }
  await Promise.all(started);
}

async function remove(p: string, e: Entry): Promise<void> {
  if (e.made) {
    await e.made.catch(() => false);
    if (e.ino === undefined) return; // not made here
    const st = await lstat(p).catch(() => null);
    if (st?.isFile() && st.ino === e.ino && st.size === e.size) await rm(p, { force: true }).catch(() => undefined);
    return;
  }
  // A guard folder: removed only while an empty folder (host git may have filled `.git/logs`).
  await rmdir(p).catch(() => undefined);
}
