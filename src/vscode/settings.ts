// agentTeams.* settings → RuntimeSettings (package.json `contributes.configuration`, README.md), plus a listener that re-reads them.
import * as vscode from 'vscode';
import type { RuleSource } from '../core/permissions/rules';
import { DEFAULT_SETTINGS, type BashPolicy, type PlanApprover, type RuntimeSettings } from '../core/runtime/types';

const SECTION = 'agentTeams';

function num(c: vscode.WorkspaceConfiguration, key: string, fallback: number, min: number): number {
  const v = c.get<number>(key);
  return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export function readSettings(): RuntimeSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const model = c.get<string>('model')?.trim();
  return {
    ...DEFAULT_SETTINGS,
    model: model || DEFAULT_SETTINGS.model,
    maxRounds: num(c, 'maxRounds', DEFAULT_SETTINGS.maxRounds, 1),
    idlePollSeconds: num(c, 'idlePollSeconds', DEFAULT_SETTINGS.idlePollSeconds, 1),
    idleTimeoutSeconds: num(c, 'idleTimeoutSeconds', DEFAULT_SETTINGS.idleTimeoutSeconds, 0),
    planApproval: oneOf<PlanApprover>(c.get('planApproval'), ['user', 'lead'], DEFAULT_SETTINGS.planApproval),
    bashPolicy: oneOf<BashPolicy>(c.get('toolApproval.bash'), ['ask', 'allow', 'deny'], DEFAULT_SETTINGS.bashPolicy),
    tokenBudget: num(c, 'tokenBudget', DEFAULT_SETTINGS.tokenBudget, 0),
    maxTeammates: num(c, 'maxTeammates', DEFAULT_SETTINGS.maxTeammates, 1),
    requirePlan: oneOf<'never' | 'always'>(c.get('requirePlan'), ['never', 'always'], DEFAULT_SETTINGS.requirePlan),
    confirmTeam: c.get<boolean>('confirmTeam') === true,
  };
}

/** The base URL setting ("" when unset: the env var or the public API then). */
export function readBaseUrl(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('baseUrl')?.trim() ?? '';
}

/** Calls `onChange` with fresh settings whenever an agentTeams.* setting changes. */
export function onSettingsChange(onChange: (s: RuntimeSettings, baseUrlChanged: boolean) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) onChange(readSettings(), e.affectsConfiguration(`${SECTION}.baseUrl`));
  });
}

/** agentTeams.permissions.allow / ask / deny, as the rules engine reads them (docs/mcp.md for MCP names). */
export function readPermissionRules(): RuleSource {
  const c = vscode.workspace.getConfiguration(`${SECTION}.permissions`);
  return { allow: c.get('allow'), ask: c.get('ask'), deny: c.get('deny') };
}
