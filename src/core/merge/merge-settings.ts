// The merge queue's settings: `agentTeams.merge.auto` / `agentTeams.merge.testCommand` (CLI
// `--merge-test`), else `.team/settings.json` `{"merge": {"auto", "testCommand"}}`, the file a
// team shares in git. A setting that is set wins over the file.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { reportProblem } from '../util/problems';

export const MergeAuto = z.enum(['off', 'onTaskComplete']);
export type MergeAuto = z.infer<typeof MergeAuto>;

export const MergeSettingsFile = z.looseObject({
  auto: MergeAuto.optional(),
  testCommand: z.string().optional(),
});

export interface MergeSettings {
  auto: MergeAuto;
  /** null: merge only. */
  testCommand: string | null;
}

/** The `merge` section of `.team/settings.json`; a bad one is reported and ignored. */
export async function readMergeFile(root: string): Promise<z.infer<typeof MergeSettingsFile>> {
  const file = join(root, '.team', 'settings.json');
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return {};
  let merge: unknown;
  try {
    merge = (JSON.parse(text) as { merge?: unknown } | null)?.merge;
  } catch {
    return {}; // not JSON: reported by the permissions reader, which reads the same file
  }
  if (merge === undefined) return {};
  const r = MergeSettingsFile.safeParse(merge);
  if (r.success) return r.data;
  reportProblem({ path: file, message: `"merge" must be {"auto": "off" | "onTaskComplete", "testCommand": "<command>"}; ignored (${r.error.issues[0]?.message ?? 'invalid'})` });
  return {};
}

/** Settings (from VS Code or the CLI's flags) over the file. */
export async function mergeSettings(root: string, s: { mergeAuto?: MergeAuto; mergeTestCommand?: string }): Promise<MergeSettings> {
  const file = await readMergeFile(root);
  const auto = s.mergeAuto && s.mergeAuto !== 'off' ? s.mergeAuto : file.auto ?? 'off';
  const cmd = s.mergeTestCommand?.trim() || file.testCommand?.trim() || '';
  return { auto, testCommand: cmd || null };
}
