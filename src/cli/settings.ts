// Interactive-session flags → runtime settings (the CLI's stand-in for agentTeams.* settings).
import { DEFAULT_SETTINGS, type BashPolicy, type PlanApprover, type RuntimeSettings } from '../core/runtime/types';
import { nonNegative, oneOf, stringOpt, UsageError, type OptionValues } from './args';

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
  const rounds = str('max-rounds');
  if (rounds !== undefined) s.maxRounds = Math.max(1, nonNegative(rounds, '--max-rounds', true));
  const idle = str('idle-timeout');
  if (idle !== undefined) s.idleTimeoutSeconds = nonNegative(idle, '--idle-timeout');
  const budget = str('token-budget');
  if (budget !== undefined) s.tokenBudget = nonNegative(budget, '--token-budget', true);
  const max = str('max-teammates');
  if (max !== undefined) s.maxTeammates = Math.max(1, nonNegative(max, '--max-teammates', true));
  return s;
}
