// Folder trust recorded with content (docs/security.md, "Folder trust"): per folder (its real
// path), a fingerprint of each control file the user said yes to. The CLI keeps it in the
// user's config folder, VS Code in the extension's globalState; never in the workspace.
import { z } from 'zod';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * What a trusted file was: its SHA-256 and, for JSON, each leaf's path with a short hash of its
 * value — enough to say later which keys were added, changed or removed, without keeping the
 * values (an `.mcp.json` env can hold a secret).
 */
export const FileFingerprint = z.object({
  sha256: hex64,
  leaves: z.record(z.string(), z.string()).optional(),
});
export type FileFingerprint = z.infer<typeof FileFingerprint>;

export const TrustedFolder = z.object({
  /** File (relative to the folder) → what was trusted. Version 1 kept only the SHA-256. */
  files: z.record(z.string(), z.union([hex64.transform((sha256): FileFingerprint => ({ sha256 })), FileFingerprint])),
  at: z.string(),
});
export type TrustedFolder = z.infer<typeof TrustedFolder>;

export const TrustFile = z.object({
  version: z.union([z.literal(1), z.literal(2)]).transform(() => 2 as const),
  folders: z.record(z.string(), TrustedFolder),
});
export type TrustFile = z.infer<typeof TrustFile>;
