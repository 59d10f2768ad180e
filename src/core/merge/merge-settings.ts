// The merge queue's settings: `agentTeams.merge.auto` / `agentTeams.merge.testCommand` (CLI
// `--merge-test`), else `.team/settings.json` `{"merge": {"auto", "testCommand"}}`, the file a
// team shares in git. A setting that is set wins over the file.
import { join } from 'node:path';
import type { z } from 'zod';
import { MergeAuto, MergeSettingsFile } from '../../shared/schemas/team-settings';
import { readTeamSettings } from '../team/team-settings';
import { reportProblem } from '../util/problems';

// The schemas live with the file's other sections (shared/schemas/team-settings.ts).
export { MergeAuto, MergeSettingsFile };

export interface MergeSettings {
  auto: MergeAuto;
  /** null: merge only. */
  testCommand: string | null;
}

/** The `merge` section of `.team/settings.json`; a bad one is reported and ignored. */
export async function readMergeFile(root: string): Promise<z.infer<typeof MergeSettingsFile>> {
  const read = await readTeamSettings(root);
  // A file that is not JSON is reported by the permissions and worktree readers; the section's own problem here.
  const problem = read.problems.merge;
  if (problem) reportProblem({ path: join(root, '.team', 'settings.json'), message: problem });
  return read.sections.merge ?? {};
}

/** Settings (from VS Code or the CLI's flags) over the file. */
export async function mergeSettings(root: string, s: { mergeAuto?: MergeAuto; mergeTestCommand?: string }): Promise<MergeSettings> {
  const file = await readMergeFile(root);
  const auto = s.mergeAuto && s.mergeAuto !== 'off' ? s.mergeAuto : file.auto ?? 'off';
  const cmd = s.mergeTestCommand?.trim() || file.testCommand?.trim() || '';
  return { auto, testCommand: cmd || null };
}
