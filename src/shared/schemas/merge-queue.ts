// The merge queue's file, `.team/merge-queue.json` (docs/file-formats.md, "Merge queue"):
// entries in the order they were queued, each a teammate's branch on its way onto the
// branch checked out in the workspace. Loose objects, like the other team files.
import { z } from 'zod';
import { ParticipantName } from './roster';

export const MergeState = z.enum(['queued', 'testing', 'merged', 'failed', 'cancelled']);
export type MergeState = z.infer<typeof MergeState>;

const sha = z.string().regex(/^[0-9a-f]{40,64}$/);

/** A control path a merge changes (core/merge/control-gate.ts) and its new blob (null: deleted). */
export const ControlChange = z.object({
  path: z.string().min(1),
  oid: sha.nullable(),
  /** Its new mode (120000: a symbolic link, whose blob is the link's target). */
  mode: z.string().regex(/^[0-7]{6}$/).optional(),
});
export type ControlChange = z.infer<typeof ControlChange>;

/** How the scratch checkout was made ready to test (core/merge/scratch.ts). */
export const Prepared = z.object({
  /** setup: worktree.setup ran (after worktree.copy); copy: worktree.copy only; shared: the main checkout's ignored dependency folders linked in read-only; none: a plain checkout. */
  mode: z.enum(['setup', 'copy', 'shared', 'none']),
  detail: z.string(),
});
export type Prepared = z.infer<typeof Prepared>;

/** What failed (a failed entry): the step, who is at fault and why, the exit code and first error lines. */
export const Failure = z.looseObject({
  step: z.enum(['prepare', 'merge', 'test']),
  /** branch: the teammate's branch must change; environment: the machine, the settings or the workspace branch must. */
  fault: z.enum(['branch', 'environment']),
  why: z.string(),
  exit_code: z.number().int().nullable().optional(),
  first_errors: z.string().nullable().optional(),
  /** A conflict: the workspace branch's commits that changed the conflicting files, with their authors. */
  theirs: z.array(z.object({ commit: z.string(), subject: z.string(), author: z.string() })).optional(),
});
export type Failure = z.infer<typeof Failure>;

export const MergeEntry = z.looseObject({
  id: z.string().regex(/^mq_[0-9a-z_]{1,64}$/),
  teammate: ParticipantName,
  /** The teammate's branch (`wt/<name>`). */
  branch: z.string().min(1),
  /** The configured test command (or the user's own for this entry); null: merge only, no test gate. */
  test_command: z.string().nullable(),
  /** A command the lead added (queue_merge's test_command), run after test_command passes; never instead of it. */
  extra_test_command: z.string().nullable().optional(),
  /** The teammate's task the work is for; back in progress when the entry fails. */
  task: z.number().int().nullable(),
  state: MergeState,
  /** Who queued it: `lead`, `user`, `auto` (agentTeams.merge.auto), or `fix` (queued again when the teammate completed the task its failed entry sent back). */
  by: z.string(),
  queued_at: z.number(),
  updated_at: z.number(),
  /** While `testing`: the host working on it. A dead or silent host's entry is retried. */
  worker: z.looseObject({ host: z.string(), pid: z.number().int(), heartbeat_at: z.number() }).nullable().optional(),
  /** Written by older versions (the scratch checkout's folder); read and ignored. */
  scratch: z.string().nullable().optional(),
  /** The branch the entry lands on and the commit it was merged onto. */
  into: z.string().nullable().optional(),
  base: sha.nullable().optional(),
  /** The merge commit: tested (while waiting) or landed (merged). */
  commit: sha.nullable().optional(),
  /** Why a tested entry has not landed yet (the user's tree has uncommitted changes). */
  waiting: z.string().nullable().optional(),
  /** A failed entry's reason, one line. */
  reason: z.string().nullable().optional(),
  /** Conflicting files (a failed merge) or the files the merge changed (merged). */
  files: z.array(z.string()).optional(),
  /** Control paths the merge changes that the user has not approved (a failed entry waiting for `queue approve`). */
  control: z.array(ControlChange).optional(),
  /** Control-path changes the user approved for this entry: it lands if the merge changes exactly these, or fewer. */
  approved: z.array(ControlChange).optional(),
  /** How the scratch checkout the test ran in was prepared. */
  prepared: Prepared.nullable().optional(),
  failure: Failure.nullable().optional(),
  /** A failed entry: the branch's tip it failed at (a later tip is a fix: merge-queue.ts requeueFixed). */
  tip: z.string().optional(),
  /** A failed entry whose teammate had shut down and was brought back by the queue to fix it: asked to shut down again once its fixed branch lands. */
  revived: z.boolean().optional(),
  /** The end of the test command's output (failed test). */
  output_tail: z.string().nullable().optional(),
});
export type MergeEntry = z.infer<typeof MergeEntry>;

export const MergeQueueFile = z.looseObject({
  version: z.literal(1),
  entries: z.array(MergeEntry),
});
export type MergeQueueFile = z.infer<typeof MergeQueueFile>;

/** Still on its way (counts for "already queued"). */
export const isOpen = (e: MergeEntry): boolean => e.state === 'queued' || e.state === 'testing';
