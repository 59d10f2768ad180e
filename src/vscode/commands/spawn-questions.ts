// The Spawn Teammate command's questions, kept few: one input for "name: role" (a role that
// names an agent definition uses it), the first instructions (Enter: a sensible default), and
// one menu whose first row starts the teammate — Enter — while the other rows change the
// optional choices (definition, model, plan first, where it works: shared checkout, worktree or
// container) and come back to it. The definitions are read from the team folder each time, so a
// file just added is offered; whether a container can start is asked of the engine while the
// menu shows, so the picker says why not before the user chooses it (docs/containers.md).
import * as vscode from 'vscode';
import { type AgentDefinition, loadTeamDefinitions, resolveModel } from '../../core/session';
import { CANCEL, validateName, type Asked } from './questions';
import { readSettings } from '../host/settings';

/** What a teammate started without instructions does: useful at once, and asks when in doubt. */
export const DEFAULT_FIRST_PROMPT = 'Look at the task board: claim an open task that fits your role and work on it. If none fits, tell the lead you are ready and what you can do.';

type Sofar = Record<string, unknown>;

async function definitionsIn(root: string | undefined): Promise<{ definitions: AgentDefinition[]; skipped: number }> {
  if (!root) return { definitions: [], skipped: 0 };
  const d = await loadTeamDefinitions(root, readSettings().model);
  return { definitions: d.definitions, skipped: d.problems.length };
}

/** Splits "alice: backend engineer"; the role may be empty. */
export function parseNameRole(text: string): { name: string; role: string } {
  const i = text.indexOf(':');
  return i < 0 ? { name: text.trim(), role: '' } : { name: text.slice(0, i).trim(), role: text.slice(i + 1).trim() };
}

/** The one required question: "name: role". Sets `role` (and `agent_type` when the role names a definition); returns the name. */
export async function askNameAndRole(root: string | undefined, s: Sofar): Promise<Asked<string>> {
  const { definitions } = await definitionsIn(root);
  const names = definitions.map((d) => d.name);
  const v = await vscode.window.showInputBox({
    title: 'Spawn Teammate',
    prompt: `name: role${names.length ? ` — or name: ${names.length === 1 ? 'the definition' : 'one of the definitions'} ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''}` : ''}. Model, plan first and worktree come next (Enter keeps the defaults).`,
    placeHolder: names.length ? `alice: backend engineer   or   ari: ${names[0]}` : 'alice: backend engineer',
    ignoreFocusOut: true,
    validateInput: (text) => {
      const { name, role } = parseNameRole(text);
      if (!name) return 'Type a name, a colon and a role: alice: backend engineer';
      const bad = validateName(name);
      if (bad) return `Name: ${bad}`;
      if (!role) return `Add a role after a colon: ${name}: backend engineer`;
      return undefined;
    },
  });
  if (v === undefined) return CANCEL;
  const { name, role } = parseNameRole(v);
  const def = definitions.find((d) => d.name === role);
  if (def) s.agent_type = def.name;
  if (s.role === undefined || s.role === null) s.role = role;
  return name;
}

/** The first instructions; empty = DEFAULT_FIRST_PROMPT. */
export async function askFirstPrompt(s: Sofar): Promise<Asked<string>> {
  const v = await vscode.window.showInputBox({
    title: `Spawn ${String(s.name)}: first instructions`,
    prompt: 'What it works on first. Enter with nothing: it claims a fitting task from the board, or tells the lead it is ready.',
    placeHolder: 'e.g. Add input validation to the signup form',
    ignoreFocusOut: true,
  });
  if (v === undefined) return CANCEL;
  return v.trim() || DEFAULT_FIRST_PROMPT;
}

type MenuRow = vscode.QuickPickItem & { value: 'start' | 'definition' | 'model' | 'plan' | 'where' };
type Where = 'none' | 'worktree' | 'container';
const WHERE_WORDS: Record<Where, string> = { none: 'shared checkout', worktree: 'own worktree', container: 'in a container' };

/**
 * The optional choices as one menu: Enter on its first row starts the teammate with what the
 * rows say; another row changes that choice and comes back. Sets `agent_type`,
 * `plan_mode_required` and `isolation` on `s`; returns the model ('' = the default).
 */
export async function spawnOptions(root: string | undefined, s: Sofar, containerProblem: () => Promise<string | null> = async () => null): Promise<Asked<string>> {
  const { definitions, skipped } = await definitionsIn(root);
  const settings = readSettings();
  let model = typeof s.model === 'string' ? s.model : '';
  let plan = typeof s.plan_mode_required === 'boolean' ? s.plan_mode_required : settings.requirePlan === 'always';
  // Unset: the definition's isolation, until the user chooses.
  let chosen = typeof s.isolation === 'string' ? s.isolation as Where : undefined;
  // Asked now, answered while the user reads the menu.
  const engine = containerProblem().catch((e: Error) => e.message);
  for (;;) {
    const def = definitions.find((d) => d.name === s.agent_type);
    const where: Where = chosen ?? def?.isolation ?? 'none';
    const modelWords = model || (def?.model ? `${def.model} (its definition's)` : `${settings.model} (the team's)`);
    const rows: MenuRow[] = [
      {
        label: `$(play) Spawn ${String(s.name)}`, value: 'start',
        description: [def ? `from ${def.name}` : String(s.role), modelWords.replace(/ \(.*\)$/, ''), plan ? 'plans first' : 'works at once', WHERE_WORDS[where]].join(' · '),
      },
      ...(definitions.length ? [{ label: '$(person) Agent definition', description: def ? `${def.name} — ${def.description}` : 'none (a free role)', value: 'definition' as const }] : []),
      { label: '$(chip) Model', description: modelWords, value: 'model' },
      { label: '$(checklist) Plan first', description: plan ? 'yes: read-only until you approve its plan (per task)' : 'no: may edit files and run commands at once', value: 'plan' },
      { label: '$(git-branch) Where it works', description: whereDetail(where, String(s.name)), value: 'where' },
    ];
    const picked = await vscode.window.showQuickPick(rows, {
      title: `Spawn ${String(s.name)}: Enter to start, or change a choice${skipped ? ` (${skipped} definition${skipped === 1 ? '' : 's'} skipped: see agent-teams agents)` : ''}`,
      placeHolder: 'Enter starts it as the first row says', matchOnDescription: false, ignoreFocusOut: true,
    });
    if (!picked) return CANCEL;
    if (picked.value === 'start') {
      s.plan_mode_required = plan;
      s.isolation = where;
      return model;
    }
    if (picked.value === 'plan') plan = !plan;
    else if (picked.value === 'where') {
      const w = await pickWhere(String(s.name), where, engine);
      if (w !== CANCEL) chosen = w;
    }
    else if (picked.value === 'definition') {
      const t = await pickAgentType(definitions);
      if (t !== CANCEL) s.agent_type = t || undefined;
    } else {
      const m = await pickModel(def);
      if (m !== CANCEL) model = m;
    }
  }
}

function whereDetail(where: Where, name: string): string {
  if (where === 'worktree') return `own git worktree: branch wt/${name} in .worktrees/`;
  if (where === 'container') return `in a container: branch team/${name} cloned into it`;
  return 'the shared checkout';
}

/**
 * Shared checkout, worktree or container. The container row says whether an engine answers;
 * chosen when none does, it is refused here with what to set (not at the spawn).
 */
async function pickWhere(name: string, now: Where, engine: Promise<string | null>): Promise<Asked<Where>> {
  const q = vscode.window.createQuickPick<vscode.QuickPickItem & { value: Where }>();
  const rows = (problem: string | null | undefined) => [
    { label: 'Shared checkout', description: 'edits the files you have open', value: 'none' as const },
    { label: 'Own git worktree', description: `branch wt/${name} in .worktrees/`, value: 'worktree' as const },
    {
      label: 'In a container', value: 'container' as const,
      description: problem === undefined ? 'asking the container engine…' : problem === null ? `branch team/${name} cloned into its own container (docs/containers.md)` : 'unavailable: no container engine or image',
      ...(problem ? { detail: `${problem} — set agentTeams.container.host (and .image, or a .devcontainer/)` } : {}),
    },
  ];
  q.title = `Spawn ${name}: where does it work?`;
  q.ignoreFocusOut = true;
  q.items = rows(undefined);
  q.activeItems = q.items.filter((i) => i.value === now);
  q.busy = true;
  let problem: string | null | undefined;
  void engine.then((p) => { problem = p; q.busy = false; const active = q.activeItems[0]?.value; q.items = rows(p); q.activeItems = q.items.filter((i) => i.value === active); });
  const picked = await new Promise<Where | undefined>((resolve) => {
    q.onDidAccept(() => resolve(q.selectedItems[0]?.value));
    q.onDidHide(() => resolve(undefined));
    q.show();
  });
  q.dispose();
  if (!picked) return CANCEL;
  if (picked !== 'container') return picked;
  problem = await engine;
  if (problem === null) return picked;
  void vscode.window.showWarningMessage(`${name} cannot run in a container: ${problem}`, 'Open Settings').then((a) => {
    if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'agentTeams.container');
  });
  return CANCEL;
}

/** "" = no definition (a free role). */
async function pickAgentType(definitions: AgentDefinition[]): Promise<Asked<string>> {
  const picked = await vscode.window.showQuickPick([
    { label: 'No definition', description: 'the free role you typed', value: '' },
    ...definitions.map((d) => ({
      label: d.name, description: d.model ?? '', detail: `${d.description}${d.tools ? ` — tools: ${d.tools.join(', ')}` : ''}`, value: d.name,
    })),
  ], { title: 'Spawn Teammate: from an agent definition?', matchOnDetail: true, ignoreFocusOut: true });
  return picked ? picked.value : CANCEL;
}

/** '' = the default; "Other model id…" takes any id the API (or a proxy) knows. */
async function pickModel(def: AgentDefinition | undefined): Promise<Asked<string>> {
  const team = readSettings().model;
  // The chat models VS Code has (docs/models.md): a teammate may run on any of them.
  const lm = await Promise.resolve(vscode.lm?.selectChatModels?.()).catch(() => undefined) ?? [];
  const vscodeModels = [...new Map(lm.map((m) => [`vscode:${m.vendor}/${m.family}`, m])).entries()]
    .map(([id, m]) => ({ label: id, description: `${m.name} (VS Code)`, value: id }));
  const picked = await vscode.window.showQuickPick([
    { label: def ? 'As its definition says' : 'Team model', description: def ? (def.model ?? team) : team, value: '' },
    { label: 'opus', description: 'most capable, priced highest', value: 'opus' },
    { label: 'sonnet', description: 'balanced', value: 'sonnet' },
    { label: 'haiku', description: 'fast and cheap', value: 'haiku' },
    ...vscodeModels,
    { label: 'Other model id…', description: "a full id, or your proxy's model name", value: '?' },
  ], { title: 'Spawn Teammate: which model?', ignoreFocusOut: true });
  if (!picked) return CANCEL;
  if (picked.value !== '?') return picked.value;
  const id = await vscode.window.showInputBox({
    title: 'Spawn Teammate: model id', prompt: 'e.g. claude-opus-4-5, openai:gpt-4.1, vscode:copilot/gpt-4o, or the name your proxy uses', ignoreFocusOut: true,
    validateInput: (v) => {
      const r = resolveModel(v, team);
      return !v.trim() ? 'Required' : r.ok ? (r.warning ? { message: `Unknown to us: ${r.warning}.`, severity: vscode.InputBoxValidationSeverity.Warning } : undefined) : r.error;
    },
  });
  return id === undefined ? CANCEL : id.trim();
}
