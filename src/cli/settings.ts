// Interactive-session flags → runtime settings (the CLI's stand-in for agentTeams.* settings).
import { type BashPolicy, DEFAULT_SETTINGS, type PlanApprover, reportProblem, type RuntimeSettings } from '../core/session';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
  return s;
}

/**
 * Adds the rules of `.team/settings.json` (`{"permissions": {"allow": [...], ...}}`) to
 * those from the flags. A file that does not parse is reported and contributes nothing;
 * malformed entries are passed on for the rule parser to report (docs/permissions.md).
 */
export async function withTeamSettings(root: string, s: RuntimeSettings, flags: OptionValues = {}): Promise<RuntimeSettings> {
  const file = join(root, '.team', 'settings.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return s; // no file: nothing to add
  }
  let perms: unknown;
  try {
    const json = JSON.parse(text) as { permissions?: unknown; sandbox?: unknown } | null;
    perms = json?.permissions;
    s = { ...s, sandbox: withFileSandbox(file, json?.sandbox, s.sandbox, flags) };
  } catch (e) {
    reportProblem({ path: file, message: `not valid JSON, its permission rules are ignored: ${(e as Error).message}` });
    return s;
  }
  if (perms === undefined) return s;
  if (!perms || typeof perms !== 'object' || Array.isArray(perms)) {
    reportProblem({ path: file, message: '"permissions" must be an object with allow / ask / deny arrays; ignored' });
    return s;
  }
  const p = perms as Record<string, unknown>;
  const merged = { ...s.permissions };
  for (const kind of ['allow', 'ask', 'deny'] as const) {
    const v = p[kind];
    if (v === undefined) continue;
    // A non-array is handed on as one entry: the rule parser reports it, it never allows.
    merged[kind] = [...merged[kind], ...(Array.isArray(v) ? v : [v]) as string[]];
  }
  return { ...s, permissions: merged };
}
