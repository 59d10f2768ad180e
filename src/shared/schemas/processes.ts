// Process records, `.team/processes/<pgid>-<start>.json` (docs/file-formats.md, "Process records").
import { z } from 'zod';

/**
 * A process group a host started for an agent (`.team/processes/<pgid>-<start>.json`,
 * docs/file-formats.md "Process records"): kept while it runs, so a host taking over from a
 * dead one can kill it. `start` is field 22 of /proc/<pid>/stat (start time since boot),
 * which with `boot` (the kernel's boot id) tells a reused pid from the recorded process.
 */
export const ProcessRecord = z.looseObject({
  pgid: z.number().int().positive(),
  start: z.string(),
  boot: z.string(),
  agent: z.string(),
  kind: z.enum(['bash', 'job']),
  command: z.string(),
  started_at: z.number(),
  host: z.looseObject({ id: z.string(), pid: z.number().int().positive(), start: z.string(), hostname: z.string() }),
});
export type ProcessRecord = z.infer<typeof ProcessRecord>;
