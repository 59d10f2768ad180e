// What a new worktree is prepared with (docs/file-formats.md, "Team settings"): the
// `worktree` key of `.team/settings.json`, over which the host's setting
// (`agentTeams.worktree.setup`) wins key by key. Read when a checkout is made, so an edit
// applies to the next worktree without a restart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** Longest a preparation (copy, then every setup command) may take by default. */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 600;

export const WorktreeSetupSchema = z.object({
  setup: z.array(z.string().min(1)).optional()
    .describe('Shell commands run in order in a new worktree before its teammate starts (e.g. "npm ci"); the first failure stops the rest.'),
  copy: z.array(z.string().min(1)).optional()
    .describe('Globs relative to the workspace folder (".env", "node_modules", "packages/*/node_modules") brought over from the main checkout first.'),
  timeoutSeconds: z.number().positive().optional()
    .describe('Limit for the copy and each setup command (default 600).'),
}).strict();
export type WorktreeSetup = z.infer<typeof WorktreeSetupSchema>;

export interface SetupConfig {
  setup: string[];
  copy: string[];
  timeoutSeconds: number;
  /** Why `.team/settings.json`'s `worktree` key was not used (not JSON, a wrong field). */
  problem?: string;
}

function issues(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.join('.') || 'worktree'}: ${i.message}`).join('; ');
}

/** The `worktree` key of `.team/settings.json` under `root`; a bad file is a problem, never a throw. */
export async function readTeamWorktreeSetup(root: string): Promise<{ value: WorktreeSetup; problem?: string }> {
  const file = join(root, '.team', 'settings.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { value: {} };
  }
  let raw: unknown;
  try {
    raw = (JSON.parse(text) as { worktree?: unknown } | null)?.worktree;
  } catch (e) {
    return { value: {}, problem: `.team/settings.json is not valid JSON (${(e as Error).message}); its worktree setup is ignored` };
  }
  if (raw === undefined) return { value: {} };
  const parsed = WorktreeSetupSchema.safeParse(raw);
  if (!parsed.success) return { value: {}, problem: `.team/settings.json "worktree" ignored: ${issues(parsed.error)}` };
  return { value: parsed.data };
}

/** The file's setup with the host's setting laid over it, key by key. */
export async function worktreeSetupFor(root: string, host: WorktreeSetup | undefined): Promise<SetupConfig> {
  const file = await readTeamWorktreeSetup(root);
  const pick = { ...file.value, ...Object.fromEntries(Object.entries(host ?? {}).filter(([, v]) => v !== undefined)) } as WorktreeSetup;
  return {
    setup: pick.setup ?? [],
    copy: pick.copy ?? [],
    timeoutSeconds: pick.timeoutSeconds ?? DEFAULT_SETUP_TIMEOUT_SECONDS,
    ...(file.problem ? { problem: file.problem } : {}),
  };
}
