// The Spawn Teammate command's questions about the role: which agent definition (a quick
// pick with their descriptions), which model, and whether it plans first. The definitions
// are read from the team folder each time, so a file just added is offered.
import * as vscode from 'vscode';
import { loadTeamDefinitions } from '../core/roles/roles';
import { CANCEL, type Asked } from './prompts';
import { readSettings } from './settings';

/** "" = no definition (a free role). */
export async function pickAgentType(root: string | undefined): Promise<Asked<string>> {
  if (!root) return '';
  const { definitions, problems } = await loadTeamDefinitions(root, readSettings().model);
  if (!definitions.length) return '';
  const items = [
    { label: 'No definition', description: 'a free role you type next', value: '' },
    ...definitions.map((d) => ({
      label: d.name, description: d.model ?? '', detail: `${d.description}${d.tools ? ` — tools: ${d.tools.join(', ')}` : ''}`, value: d.name,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `Spawn Teammate: from an agent definition?${problems.length ? ` (${problems.length} skipped: see agent-teams agents)` : ''}`,
    matchOnDetail: true, ignoreFocusOut: true,
  });
  return picked ? picked.value : CANCEL;
}

export async function pickModel(agentType: unknown): Promise<Asked<string>> {
  const team = readSettings().model;
  const picked = await vscode.window.showQuickPick([
    { label: agentType ? 'As its definition says' : 'Team model', description: agentType ? '' : team, value: '' },
    { label: 'opus', description: 'most capable, priced highest', value: 'opus' },
    { label: 'sonnet', description: 'balanced', value: 'sonnet' },
    { label: 'haiku', description: 'fast and cheap', value: 'haiku' },
  ], { title: 'Spawn Teammate: which model?', ignoreFocusOut: true });
  return picked ? picked.value : CANCEL;
}

export async function pickPlanMode(): Promise<Asked<boolean>> {
  const always = readSettings().requirePlan === 'always';
  const plan = { label: 'Plan first', description: 'read-only until you approve its plan (per task)', value: true };
  const work = { label: 'Start working', description: 'may edit files and run commands at once', value: false };
  const picked = await vscode.window.showQuickPick(always ? [plan, work] : [work, plan], { title: 'Spawn Teammate: plan first?', ignoreFocusOut: true });
  return picked ? picked.value : CANCEL;
}
