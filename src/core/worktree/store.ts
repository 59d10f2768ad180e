// The worktree index (`.worktrees/index.json`) and event log (`.worktrees/events.jsonl`)
// (schemas: src/shared/schemas/worktrees.ts): atomic index writes, and moving a corrupt index aside instead of
// resetting it.
import { appendFile, readFile, rename } from 'node:fs/promises';
import { WorktreeEventSchema, WorktreeIndexSchema, type WorktreeEvent, type WorktreeIndex } from '../../shared/schemas/worktrees';
import { writeFileAtomic } from '../util/atomic-file';

export {
  WorktreeEventSchema, WorktreeIndexSchema, WorktreeRecordSchema, WorktreeStatusSchema,
  type WorktreeEvent, type WorktreeIndex, type WorktreeRecord, type WorktreeStatus,
} from '../../shared/schemas/worktrees';

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
