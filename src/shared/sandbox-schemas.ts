// The sandbox's settings (docs/security.md): setting `agentTeams.sandbox*`, CLI `--sandbox` /
// `--allow-domain`, and the `"sandbox"` object of `.team/settings.json`. One zod schema serves
// the file and the defaults.
import { z } from 'zod';

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * A host commands may reach: `registry.npmjs.org`, `*.github.com` (any subdomain), `localhost`,
 * `127.0.0.1:5173` (one port only). Lower case, no scheme or path.
 */
export const allowedDomain = z.string().trim().toLowerCase()
  .regex(/^(\*\.)?[a-z0-9_.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/, 'expected a host name such as registry.npmjs.org, *.github.com or localhost:5173');

/** The `"sandbox"` object of `.team/settings.json` (every field optional). */
export const sandboxFileSchema = z.object({
  mode: z.enum(SANDBOX_MODES).optional(),
  allowedDomains: z.array(allowedDomain).optional(),
  autoAllow: z.boolean().optional(),
}).strict();
export type SandboxFile = z.infer<typeof sandboxFileSchema>;

export interface SandboxSettings {
  mode: SandboxMode;
  /** Hosts commands reach without asking (see `allowedDomain`). */
  allowedDomains: string[];
  /** In the sandbox, a command no rule decides runs without asking. */
  autoAllow: boolean;
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'auto', allowedDomains: [], autoAllow: true };
