// What a new worktree is prepared with (docs/file-formats.md, "Team settings"): the
// `worktree` key of `.team/settings.json`, over which the host's setting
// (`agentTeams.worktree.setup`) wins key by key. Read when a checkout is made, so an edit
// applies to the next worktree without a restart.
import type { WorktreeSetup } from '../../shared/schemas/team-settings';
import { readTeamSettings, sectionProblem } from '../team/team-settings';

/** Longest a preparation (copy, then every setup command) may take by default. */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 600;

// The schema lives with the file's other sections (shared/schemas/team-settings.ts).
export { WorktreeSetupSchema, type WorktreeSetup } from '../../shared/schemas/team-settings';

export interface SetupConfig {
  setup: string[];
  copy: string[];
  timeoutSeconds: number;
  /** Why `.team/settings.json`'s `worktree` key was not used (not JSON, a wrong field). */
  problem?: string;
}

/** The `worktree` key of `.team/settings.json` under `root`; a bad file is a problem, never a throw. */
export async function readTeamWorktreeSetup(root: string): Promise<{ value: WorktreeSetup; problem?: string }> {
  const file = await readTeamSettings(root);
  const problem = sectionProblem(file, 'worktree');
  return { value: file.sections.worktree ?? {}, ...(problem ? { problem: `.team/settings.json ${problem}` } : {}) };
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
