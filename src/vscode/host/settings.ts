// agentTeams.* settings → RuntimeSettings (package.json `contributes.configuration`, README.md), plus a listener that re-reads them.
import * as vscode from 'vscode';
import {
  type BashPolicy, DEFAULT_SETTINGS, type PermissionLists, type PlanApprover, type RuntimeSettings, type WorktreeSetup, WorktreeSetupSchema,
} from '../../core/session';
import { allowedDomain, DEFAULT_SANDBOX, SANDBOX_MODES, type SandboxMode, type SandboxSettings } from '../../shared/sandbox-schemas';
import { containerFileSchema, type ContainerFile } from '../../shared/container-schemas';

const SECTION = 'agentTeams';

type Config = Pick<vscode.WorkspaceConfiguration, 'get' | 'inspect'>;

/**
 * Set when the user chose to ignore a changed `.vscode/settings.json` (content-trust.ts):
 * agentTeams.* then come from the user's settings only, as in an untrusted workspace.
 */
let workspaceIgnored = false;
export function ignoreWorkspaceSettings(ignore: boolean): void {
  workspaceIgnored = ignore;
}

/** `c` without the workspace's and folder's values. */
function userOnly(c: vscode.WorkspaceConfiguration): Config {
  const inspect = <T>(key: string) => {
    const i = c.inspect<T>(key);
    return i && { key: i.key, defaultValue: i.defaultValue, globalValue: i.globalValue };
  };
  return {
    inspect,
    get: (<T>(key: string, fallback?: T) => {
      const i = inspect<T>(key);
      return i?.globalValue ?? i?.defaultValue ?? fallback;
    }) as Config['get'],
  };
}

function num(c: Config, key: string, fallback: number, min: number): number {
  const v = c.get<number>(key);
  return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export function readSettings(): RuntimeSettings {
  const all = vscode.workspace.getConfiguration(SECTION);
  const c = workspaceIgnored ? userOnly(all) : all;
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
    mergeAuto: oneOf<RuntimeSettings['mergeAuto']>(c.get('merge.auto'), ['off', 'onTaskComplete'], DEFAULT_SETTINGS.mergeAuto),
    mergeTestCommand: c.get<string>('merge.testCommand')?.trim() ?? '',
    permissions: readPermissions(c),
    worktreeSetup: readWorktreeSetup(c),
    sandbox: readSandbox(c),
    container: readContainer(c),
  };
}

/**
 * agentTeams.container.* (docs/containers.md), over `.team/settings.json`'s "container": each
 * field that is set and well formed. host, hosts and network are machine settings (package.json):
 * a workspace cannot send its teammates' code to an engine of its choosing or open their network.
 */
function readContainer(c: Config): ContainerFile {
  const out: Record<string, unknown> = {};
  for (const key of ['host', 'hosts', 'image', 'cpus', 'memory', 'network'] as const) {
    const v = c.get<unknown>(`container.${key}`);
    if (v === undefined || v === '' || v === 0 || (Array.isArray(v) && !v.length)) continue;
    const r = containerFileSchema.shape[key].safeParse(v);
    if (r.success) out[key] = r.data;
  }
  return out as ContainerFile;
}

/**
 * agentTeams.sandbox.mode / .allowedDomains / .autoAllow (docs/security.md). The mode is one
 * level down from the short name `agentTeams.sandbox`, because VS Code cannot keep a value at a
 * name that also has settings below it; a string written at the short name is still honoured
 * and wins. Hosts that are not host names are left out.
 */
function readSandbox(c: Config): SandboxSettings {
  const domains = c.get<unknown>('sandbox.allowedDomains');
  const short = c.get<unknown>('sandbox');
  return {
    mode: oneOf<SandboxMode>(typeof short === 'string' ? short : c.get('sandbox.mode'), SANDBOX_MODES, DEFAULT_SANDBOX.mode),
    allowedDomains: (Array.isArray(domains) ? domains : []).flatMap((d) => { const r = allowedDomain.safeParse(d); return r.success ? [r.data] : []; }),
    autoAllow: c.get<boolean>('sandbox.autoAllow') !== false,
  };
}

/** agentTeams.worktree.setup; a value of the wrong shape is ignored (`.team/settings.json`'s then applies). */
function readWorktreeSetup(c: Config): WorktreeSetup | undefined {
  const parsed = WorktreeSetupSchema.safeParse(c.get('worktree.setup') ?? {});
  return parsed.success ? parsed.data : undefined;
}

/**
 * The user's rules plus, in a trusted workspace only, the workspace's and the folder's
 * (docs/permissions.md): a cloned repository cannot allow itself anything. Entries that
 * are not strings are passed on, so the rule parser reports them instead of dropping them.
 */
function readPermissions(c: Config): PermissionLists {
  const trusted = vscode.workspace.isTrusted;
  const lists: PermissionLists = { allow: [], ask: [], deny: [] };
  for (const kind of ['allow', 'ask', 'deny'] as const) {
    const i = c.inspect<unknown>(`permissions.${kind}`);
    const layers = [i?.globalValue, ...(trusted ? [i?.workspaceValue, i?.workspaceFolderValue] : [])];
    for (const v of layers) if (v !== undefined) lists[kind].push(...(Array.isArray(v) ? v : [v]) as string[]);
  }
  return lists;
}

/** The base URL setting ("" when unset: the env var or the public API then). */
export function readBaseUrl(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('baseUrl')?.trim() ?? '';
}

/** The `openai:` provider's endpoint ("" when unset: OPENAI_BASE_URL, else OpenAI's API): docs/models.md. */
export function readOpenAIBaseUrl(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('openai.baseUrl')?.trim() ?? '';
}

/** Calls `onChange` with fresh settings whenever an agentTeams.* setting changes. */
export function onSettingsChange(onChange: (s: RuntimeSettings, baseUrlChanged: boolean) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) onChange(readSettings(), e.affectsConfiguration(`${SECTION}.baseUrl`) || e.affectsConfiguration(`${SECTION}.openai.baseUrl`));
  });
}
