// Interactive-session flags → runtime settings (the CLI's stand-in for agentTeams.* settings).
import { type BashPolicy, DEFAULT_SETTINGS, type PlanApprover, readTeamSettings, reportProblem, type RuntimeSettings } from '../core/session';
import { join } from 'node:path';
import { containerFileSchema } from '../shared/container-schemas';
import { TEAM_SETTINGS_SECTIONS } from '../shared/schemas/team-settings';
import { nonNegative, oneOf, stringList, stringOpt, UsageError, type OptionValues } from './args';
import { sandboxFromFlags, withFileSandbox } from './sandbox-settings';

export function sessionSettings(values: OptionValues): RuntimeSettings {
  const s: RuntimeSettings = { ...DEFAULT_SETTINGS };
  const str = (k: string) => stringOpt(values, k);
  const model = str('model')?.trim();
  if (model !== undefined) {
    if (!model) throw new UsageError('--model needs a model id');
    s.model = model;
  }
  const bash = str('bash');
  if (bash !== undefined) s.bashPolicy = oneOf<BashPolicy>(bash, ['ask', 'allow', 'deny'], '--bash');
  const plans = str('plan-approval');
  if (plans !== undefined) s.planApproval = oneOf<PlanApprover>(plans, ['user', 'lead'], '--plan-approval');
  const requirePlan = str('require-plan');
  if (requirePlan !== undefined) s.requirePlan = oneOf<'never' | 'always'>(requirePlan, ['never', 'always'], '--require-plan');
  if (values['confirm-team'] === true) s.confirmTeam = true;
  const mergeTest = str('merge-test');
  if (mergeTest !== undefined) s.mergeTestCommand = mergeTest;
  const rounds = str('max-rounds');
  if (rounds !== undefined) s.maxRounds = Math.max(1, nonNegative(rounds, '--max-rounds', true));
  const idle = str('idle-timeout');
  if (idle !== undefined) s.idleTimeoutSeconds = nonNegative(idle, '--idle-timeout');
  const budget = str('token-budget');
  if (budget !== undefined) s.tokenBudget = nonNegative(budget, '--token-budget', true);
  const max = str('max-teammates');
  if (max !== undefined) s.maxTeammates = Math.max(1, nonNegative(max, '--max-teammates', true));
  s.permissions = { allow: stringList(values, 'allow'), ask: stringList(values, 'ask'), deny: stringList(values, 'deny') };
  s.sandbox = sandboxFromFlags(values);
  const containerHost = str('container-host');
  if (containerHost !== undefined) {
    const host = containerFileSchema.shape.host.safeParse(containerHost);
    if (!host.success) throw new UsageError(`--container-host: ${host.error.issues[0]?.message}`);
    s.container = { host: host.data };
  }
  return s;
}

/**
 * Adds the rules and the sandbox section of `.team/settings.json` (read by the one reader,
 * core/team/team-settings.ts) to those from the flags. A file that does not parse is reported
 * and contributes nothing; a malformed section or rule is reported by field and left out,
 * the rest still counts (docs/file-formats.md, "Team settings").
 */
export async function withTeamSettings(root: string, s: RuntimeSettings, flags: OptionValues = {}): Promise<RuntimeSettings> {
  const file = join(root, '.team', 'settings.json');
  const read = await readTeamSettings(root);
  if (read.fileProblem) reportProblem({ path: file, message: `${read.fileProblem}; its permission rules and sandbox settings are ignored` });
  for (const key of read.unknownKeys) reportProblem({ path: file, message: `"${key}" is not a known section (${Object.keys(TEAM_SETTINGS_SECTIONS).join(', ')}); ignored` });
  for (const section of ['permissions', 'sandbox'] as const) {
    const problem = read.problems[section];
    if (problem) reportProblem({ path: file, message: problem });
  }
  const { permissions, sandbox } = read.sections;
  const merged = { ...s.permissions };
  for (const kind of ['allow', 'ask', 'deny'] as const) merged[kind] = [...merged[kind], ...(permissions?.[kind] ?? [])];
  return { ...s, permissions: merged, sandbox: withFileSandbox(sandbox, s.sandbox, flags) };
}
