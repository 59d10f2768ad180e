// The worktree index (`.worktrees/index.json`) and event log (`.worktrees/events.jsonl`):
// their schemas, atomic index writes, and moving a corrupt index aside instead of
// resetting it.
import { appendFile, readFile, rename } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-file';
import { NAME_RE } from '../util/names';

export const WorktreeStatusSchema = z.enum(['active', 'kept', 'missing'])
  .describe('active: checkout present; kept: checkout removed on purpose, branch kept; missing: checkout vanished without us');

export const WorktreeRecordSchema = z.looseObject({
  name: z.string().regex(NAME_RE),
  branch: z.string().min(1),
  /** What the caller asked to branch from (`HEAD`, a branch, a sha). */
  baseRef: z.string().min(1),
  /** The commit `baseRef` resolved to; diffs are taken against it. */
  baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/),
  /** Path of the workspace folder inside the repository ('' when it is the repository root). */
  subdir: z.string(),
  status: WorktreeStatusSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Found in git but not in the index (a crash before the index write) and taken over. */
  adopted: z.boolean().optional(),
  lastMerge: z.object({ commit: z.string(), at: z.number() }).optional(),
  /** Paths (relative to the workspace folder) the worktree setup copied in from the main checkout. */
  copied: z.array(z.string()).optional(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;
export type WorktreeStatus = z.infer<typeof WorktreeStatusSchema>;

export const WorktreeIndexSchema = z.looseObject({
  version: z.literal(1),
  worktrees: z.array(WorktreeRecordSchema),
}).refine((ix) => new Set(ix.worktrees.map((w) => w.name)).size === ix.worktrees.length, {
  message: 'duplicate worktree names',
});
export type WorktreeIndex = z.infer<typeof WorktreeIndexSchema>;

export const WorktreeEventSchema = z.object({
  event: z.enum(['create', 'remove', 'keep', 'merge']),
  phase: z.enum(['before', 'after', 'failed']),
  name: z.string(),
  branch: z.string(),
  ts: z.number(),
  error: z.string().optional(),
  /** On create/before: the commit the branch starts from, so a crash can be adopted with it. */
  base: z.string().optional(),
  /** On merge/after: the merge commit. */
  commit: z.string().optional(),
  files: z.array(z.string()).optional(),
});
export type WorktreeEvent = z.infer<typeof WorktreeEventSchema>;

export const emptyIndex = (): WorktreeIndex => ({ version: 1, worktrees: [] });

export interface IndexRead {
  index: WorktreeIndex;
  /** Set when the file existed but was unreadable; it has been moved to `movedTo`. */
  corrupt?: { movedTo: string; reason: string };
}

/** Seconds since the epoch, as float — the unit the rest of the team's files use. */
export const nowSeconds = (): number => Date.now() / 1000;

/**
 * Reads the index. A missing file is an empty index; an invalid one is renamed to
 * `index.json.corrupt-<timestamp>` and reported, so nobody's data is silently dropped.
 * Callers hold the worktree lock: moving the file is a mutation.
 */
export async function readIndex(path: string): Promise<IndexRead> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { index: emptyIndex() };
    throw err;
  }
  let reason: string;
  try {
    const parsed = WorktreeIndexSchema.safeParse(JSON.parse(raw));
    if (parsed.success) return { index: parsed.data };
    reason = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  } catch (err) {
    reason = `not JSON: ${(err as Error).message}`;
  }
  const movedTo = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(path, movedTo);
  return { index: emptyIndex(), corrupt: { movedTo, reason } };
}

/** Validates without moving anything; for lock-free readers. */
export async function peekIndex(path: string): Promise<WorktreeIndex | 'corrupt'> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyIndex();
    throw err;
  }
  try {
    const parsed = WorktreeIndexSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : 'corrupt';
  } catch {
    return 'corrupt';
  }
}

export async function writeIndex(path: string, index: WorktreeIndex): Promise<void> {
  const sorted = { ...index, worktrees: [...index.worktrees].sort((a, b) => a.name.localeCompare(b.name)) };
  // Temp file + fsync + rename (util/atomic-file.ts): readers see the old file or the new one.
  await writeFileAtomic(path, `${JSON.stringify(WorktreeIndexSchema.parse(sorted), null, 2)}\n`, undefined, { fsync: true });
}

/** One line per event; O_APPEND keeps concurrent lines whole. */
export async function appendEvent(path: string, ev: WorktreeEvent): Promise<void> {
  await appendFile(path, `${JSON.stringify(WorktreeEventSchema.parse(ev))}\n`, 'utf8');
}

/** Events in file order; unparsable lines (a torn write after a crash) are skipped. */
export async function readEvents(path: string): Promise<WorktreeEvent[]> {
  let raw: string;
  try { raw = await readFile(path, 'utf8'); } catch { return []; }
  const out: WorktreeEvent[] = [];
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue;
    try {
      const ev = WorktreeEventSchema.safeParse(JSON.parse(line));
      if (ev.success) out.push(ev.data);
    } catch { /* torn line */ }
  }
  return out;
}
