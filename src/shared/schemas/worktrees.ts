// The worktree index, `.worktrees/index.json`, and event log, `.worktrees/events.jsonl`
// (docs/file-formats.md, "Worktrees"); reading and writing them is src/core/worktree/store.ts.
import { z } from 'zod';
import { NAME_RE } from '../names';

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
