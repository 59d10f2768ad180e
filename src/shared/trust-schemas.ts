// The CLI's record of folders the user trusted (docs/security.md, "Permission rules, trust and
// MCP consent"): per folder (its real path), the SHA-256 of each workspace file the user said
// yes to. Kept in the user's config folder, never in the workspace.
import { z } from 'zod';

export const TrustedFolder = z.object({
  /** File (relative to the folder) → SHA-256 of the content trusted. */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
  at: z.string(),
});

export const TrustFile = z.object({
  version: z.literal(1),
  folders: z.record(z.string(), TrustedFolder),
});
export type TrustFile = z.infer<typeof TrustFile>;
