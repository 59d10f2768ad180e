// Fences, `.team/fences/<name>.json` (docs/file-formats.md, "Fences"): which host may write an
// agent's transcript and move its cursor (the rules are in src/core/team/fences.ts).
import { z } from 'zod';

export const Fence = z.object({
  epoch: z.number().int().positive(),
  host: z.string(),
  /** Transcript size when the fence was set: lines from here on must carry this epoch or a later one. */
  at: z.number().int().nonnegative(),
  ts: z.number(),
});
export type Fence = z.infer<typeof Fence>;

export const FenceFile = z.object({ fences: z.array(Fence) });
export type FenceFile = z.infer<typeof FenceFile>;
