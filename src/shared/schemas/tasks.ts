// The task board (docs/file-formats.md, "Tasks"): `.tasks/task_<id>.json` and the board's
// change record `.tasks/.generation`.
import { z } from 'zod';

export const TaskStatus = z.enum(['pending', 'in_progress', 'completed']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const Task = z.looseObject({
  id: z.number().int().positive(),
  subject: z.string(),
  description: z.string().default(''),
  status: TaskStatus,
  owner: z.string().nullable().default('').transform((o) => o ?? ''),
  blockedBy: z.array(z.number().int()).default([]),
  worktree: z.string().nullable().optional(),
  /** Globs of the files the task may change (docs/file-formats.md, "Tasks": file ownership). */
  files: z.array(z.string()).optional(),
});
export type Task = z.infer<typeof Task>;

/** `.tasks/.generation`: bumped by every change under the board's lock, with the ids it touched (the last 256 changes). */
export const BoardGeneration = z.object({
  gen: z.number().int(),
  changes: z.array(z.tuple([z.number().int(), z.array(z.number().int())])),
});
export type BoardGeneration = z.infer<typeof BoardGeneration>;
