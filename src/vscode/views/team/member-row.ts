// The Team view's member rows: the lead and every teammate with status in words, role, current
// task, branch, spend and (where it is not the team's) model; a click opens its transcript.
// Its contextValue (package.json menus) says lead or teammate, status, worktree, removable.
import * as vscode from 'vscode';
import { type Activity, activityWords, isPlanning, modelWords, PLANNING_WORDS, providerLacks, spendWords } from '../../../core/session';
import type { Task, Usage } from '../../../shared/schemas';
import type { MemberNode } from '../nodes';
import type { ChildNode, RootRows } from './row-kind';
import type { ActivitySource, Snapshot } from './team-snapshot';

export const memberRows: RootRows<MemberNode> = {
  kind: 'member',
  roots: (s) => {
    if (!s.hasTeam) return [];
    const lead: MemberNode = { nodeKind: 'member', name: 'lead', lead: true };
    return [lead, ...s.members.map((m): MemberNode => ({ nodeKind: 'member', name: m.name, lead: false, member: m }))];
  },
  key: (n) => `member:${n.name}`,
  item: memberItem,
};

/** The lead has no roster status: it works while its activity is anything but resting (or run elsewhere). */
export function leadStatus(activity: Activity | undefined): 'working' | 'idle' {
  return activity && !['idle', 'stopped', 'remote'].includes(activity.kind) ? 'working' : 'idle';
}

function memberItem(node: MemberNode, s: Snapshot, agents: ActivitySource, under: readonly ChildNode[]): vscode.TreeItem {
  const activity = agents.activity(node.name);
  const m = node.member;
  const status = node.lead ? leadStatus(activity) : m?.status ?? 'idle';
  // Plan mode holding it is said in words, beside whatever it is doing (reading, idle).
  const planning = m && isPlanning(m, s.plans) ? PLANNING_WORDS : undefined;
  // Another window runs it: said so, not by its random host id (Take Over Lead is on the row).
  const doing = activity?.kind === 'remote' ? 'in another window' : activityWords(activity);
  const detail = [planning, doing].filter(Boolean).join(', ') || undefined;
  const task = m?.current_task ? s.tasks.get(m.current_task) : undefined;
  const usage = node.lead ? s.leadUsage : m?.usage;
  const model = m?.model ?? agents.defaultModel();
  const spend = spendWords(usage, model);
  const role = node.lead ? 'Lead' : (m?.role ?? '');
  // The lead's row is named "lead": saying "Lead" again only cuts the rest off in a narrow side bar.
  // "shut down", as the notices say it: the roster's `shutdown` is a file value, not a word.
  const said = status === 'shutdown' ? 'shut down' : status;
  const parts = [node.lead ? '' : role, detail ? `${said} (${detail})` : said];
  if (task) parts.push(`task #${task.id}`);
  const removable = !node.lead && s.removable.has(node.name);
  if (m?.branch) parts.push(removable ? `${m.branch} merged, worktree removable` : m.branch);
  if (spend) parts.push(spend);
  // A row names its provider and model where it is not the team's (one team may mix vendors,
  // docs/models.md) or its provider lacks something (usage, prices); every tooltip names it.
  // An Anthropic team's rows then fit a 300 px side bar.
  if (model !== agents.defaultModel() || providerLacks(model)) parts.push(modelWords(model));
  const item = new vscode.TreeItem(node.name);
  const children = under.filter((c) => c.nodeKind === 'request').length;
  const jobs = under.filter((c) => c.nodeKind === 'job').length;
  const merge = under.some((c) => c.nodeKind === 'mergeEntry');
  const box = !!m?.container;
  item.collapsibleState = children || jobs || merge || box ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
  // A row that gains children needs a new id: VS Code keeps a known row's collapse state, so
  // a former leaf would stay collapsed and hide its new pending request.
  item.id = `${node.lead ? 'lead' : `member:${node.name}`}${children ? ':requests' : ''}${jobs ? ':jobs' : ''}${merge ? ':merge' : ''}${box ? ':container' : ''}`;
  item.description = parts.filter(Boolean).join(' · ');
  item.iconPath = statusIcon(status);
  // `.wt` marks a teammate with its own worktree (menus add diff / merge / keep / remove);
  // `.removable`: merged and clean, its teammate shut down — Remove Worktree is offered inline;
  // `member.lead.remote`: another window runs the lead — Take Over Lead is (commands/lead-commands.ts).
  item.contextValue = node.lead ? `member.lead${activity?.kind === 'remote' ? '.remote' : ''}` : `member.teammate.${m?.status ?? 'idle'}${m?.branch ? '.wt' : ''}${removable ? '.removable' : ''}`;
  const spoken = [node.name, role, status, detail, task ? `working on task ${task.id}: ${task.subject}` : undefined,
    m?.branch ? `on branch ${m.branch}` : undefined,
    spend, children ? `${children} pending request${children > 1 ? 's' : ''}` : undefined];
  item.accessibilityInformation = { label: spoken.filter(Boolean).join(', '), role: 'treeitem' };
  item.tooltip = tooltip(node, said, detail, task, usage, model);
  // A click opens what the agent is doing (its live transcript).
  item.command = { command: 'agentTeams.openTranscript', title: 'Open Transcript', arguments: [{ agent: node.name }] };
  return item;
}

function statusIcon(status: string): vscode.ThemeIcon {
  if (status === 'working') return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.green'));
  if (status === 'shutdown') return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  return new vscode.ThemeIcon('circle-large-outline');
}

function tooltip(node: MemberNode, status: string, detail: string | undefined, task: Task | undefined, u: Usage | undefined, model: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendText(`${node.name} — ${node.lead ? 'lead' : node.member?.role ?? ''}\n\nStatus: ${status}${detail ? ` (${detail})` : ''}\n\n`);
  if (task) md.appendText(`Task #${task.id}: ${task.subject}\n\n`);
  const lacks = providerLacks(model);
  md.appendText(`Model: ${modelWords(model)}${lacks ? ` — ${lacks}` : ''}\n\n`);
  if (node.member?.worktree) md.appendText(`Worktree: ${node.member.worktree}${node.member.branch ? ` (branch ${node.member.branch})` : ''}\n\n`);
  if (u) md.appendText(`Tokens: ${u.input} in, ${u.output} out, ${u.cache_read} cache read, ${u.cache_write} cache write${u.unreported ? `; usage unknown for ${u.unreported} calls` : ''}`);
  return md;
}
