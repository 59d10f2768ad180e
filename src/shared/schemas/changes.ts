// Change records, `.team/changes/<agent>.jsonl`, and the overlap warnings already sent,
// `.team/changes/overlaps.jsonl` (docs/file-formats.md, "Changes").
import { z } from 'zod';
import { NAME_RE } from '../names';

const ChangeSide = z.object({
  /** Absent when the content was too large to read. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  bytes: z.number().int().nonnegative(),
  /** Whether the content is in blobs/; when not, `why`. */
  stored: z.boolean(),
  why: z.enum(['binary', 'too_large', 'not_written']).optional(),
});
export type ChangeSide = z.infer<typeof ChangeSide>;

export const ChangeRecord = z.object({
  id: z.string().regex(/^chg_[0-9a-z_]{1,64}$/),
  agent: z.string().regex(NAME_RE),
  ts: z.number(),
  task: z.number().int().nullable(),
  tool: z.enum(['write_file', 'edit_file', 'revert']),
  /** The folder the agent worked in, relative to the team folder ('' or `.worktrees/<name>`). */
  root: z.string(),
  /** The file, relative to `root`, with forward slashes. */
  path: z.string().min(1),
  /** null: the file did not exist. */
  before: ChangeSide.nullable(),
  /** null: the file was deleted (a revert of a created file). */
  after: ChangeSide.nullable(),
  /** For a revert: the change it undid. */
  reverts: z.string().optional(),
});
export type ChangeRecord = z.infer<typeof ChangeRecord>;

/** One overlap warning sent: `path`, the pair of agents told. */
export const OverlapWarning = z.object({ path: z.string(), agents: z.tuple([z.string(), z.string()]), ts: z.number() });
export type OverlapWarning = z.infer<typeof OverlapWarning>;
