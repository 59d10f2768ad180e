// The Team view (agentTeams.team): the lead and every teammate with status in words, role,
// current task and tokens; pending plan and shutdown requests as children with inline
// actions (contextValue-matched in package.json); background jobs as children too (docs/tools.md).
import * as vscode from 'vscode';
import {
  type Activity, activityWords, type HookSpec, isPlanning, type JobInfo, leadUsage, type McpServerInfo, modelWords, PLANNING_WORDS, positions, providerLacks,
  type SandboxReport, shownEntries, spendWords, type ContainerState,
} from '../../../core/session';
import type { Member, RequestRecord, Task, Usage } from '../../../shared/schemas';
import { mcpServerItem } from '../../commands/mcp-commands';
import { containerItem } from './container-row';
import { ago, requestLabel, type ContainerNode, type HooksNode, type JobNode, type McpServerNode, type MemberNode, type MergeEntryNode, type RequestNode, type SandboxNode } from '../nodes';
import { hooksItem } from './hooks-row';
import { sandboxItem } from '../sandbox-status';
import type { TeamHost } from '../../host/team-host';
import { mergeEntryItem } from './merge-entry-row';

type Node = MemberNode | RequestNode | McpServerNode | JobNode | SandboxNode | HooksNode | MergeEntryNode | ContainerNode;
type RowNode = MemberNode | McpServerNode | SandboxNode | HooksNode;

interface Snapshot {
  members: Member[];
  leadUsage: Usage | undefined;
  pending: RequestRecord[];
  /** Every plan request: whether plan mode still holds a teammate (docs/file-formats.md, "Plan mode"). */
  plans: RequestRecord[];
  tasks: Map<number, Task>;
  hasTeam: boolean;
  /** Each teammate's entry in the merge queue (its open one, else its latest). */
  merges: Map<string, MergeEntryNode>;
  /** Shut-down teammates whose worktree may be removed without losing anything. */
  removable: Set<string>;
}

export interface ActivitySource {
  activity(agent: string): Activity | undefined;
  /** The model agents use unless spawned with their own (for cost estimates). */
  defaultModel(): string;
  /** This window's MCP servers (none before the team runs). */
  mcpServers?(): McpServerInfo[];
  /** The agent's background jobs this host runs. */
  jobs?(agent: string): JobInfo[];
  /** Worktrees whose removal is offered (merged, clean, teammate shut down: core/worktree/in-use.ts). */
  removableWorktrees?(): Promise<string[]>;
  /** Where commands run (docs/security.md); undefined until read. */
  sandbox?(): SandboxReport | undefined;
  /** The hooks this window's agents run (docs/hooks.md; none before the team runs). */
  hooks?(): readonly HookSpec[];
  /** Where a container teammate's container stands here (docs/containers.md). */
  container?(agent: string): ContainerState | undefined;
}

/** How long the removable worktrees (a few git calls each) are reused while the shut-down teammates stay the same. */
const REMOVABLE_TTL_MS = 10_000;

export class TeamTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: Promise<Snapshot> | undefined;
  /** The rows and their children's ids: when these change, the whole tree is redrawn. */
  private shape: string | undefined;
  /** What each root row (and its children) shows, in brief: a row that would show the same is not redrawn. */
  private shown = new Map<string, string>();
  /** One object per root row, kept across reads: VS Code redraws a row it is handed by identity. */
  private readonly rowNodes = new Map<string, RowNode>();
  private readonly sub: vscode.Disposable;

  constructor(private readonly host: Pick<TeamHost, 'view' | 'hasTeam' | 'onDidChange'>, private readonly agents: ActivitySource) {
    this.sub = host.onDidChange((kinds) => {
      // A worktree merged, kept or removed (by any host) changes which are removable.
      if (kinds.has('worktrees')) this.removableCache = undefined;
      if (kinds.has('roster') || kinds.has('requests') || kinds.has('tasks') || kinds.has('queue') || kinds.has('worktrees')) this.refresh();
      // Activity words come from the runtime, not from files: redraw without re-reading them.
      else if (kinds.has('activity')) void this.redrawIfChanged(this.load());
    });
  }

  /**
   * Re-reads the team files and redraws if what the view shows changed (or always, `force`). Most roster writes
   * (lease heartbeats, token counts below the shown precision) change nothing visible, and a
   * redraw rebuilds each row's inline actions: a click landing on one mid-redraw is lost.
   */
  refresh(force = false): void {
    this.snapshot = undefined;
    if (force) this.removableCache = undefined;
    void this.redrawIfChanged(this.load(), force);
  }

  /**
   * `force`: the user asked (Refresh, a command), so "… ago" and the like are brought up to date too.
   * Rows that changed in place are redrawn alone (with their children): an agent's status or an
   * MCP server's state changing never rebuilds another row's inline actions, such as Approve Plan
   * under the user's pointer. Rows coming or going (or gaining children) redraw the tree.
   */
  private async redrawIfChanged(loading: Promise<Snapshot>, force = false): Promise<void> {
    const s = await loading;
    if (loading !== this.snapshot) return; // a newer read is on its way
    const rows = this.rows(s);
    const shape = JSON.stringify(rows.map((r) => r.shape));
    const changed = rows.filter((r) => this.shown.get(r.key) !== r.brief);
    this.shown = new Map(rows.map((r) => [r.key, r.brief]));
    if (force || shape !== this.shape) {
      this.shape = shape;
      this.changed.fire(undefined);
      return;
    }
    for (const r of changed) this.changed.fire(r.node);
  }

  /** Each root row as drawn with its children, except the request rows' "… ago", which alone is no reason to redraw. */
  private rows(s: Snapshot): Array<{ key: string; node: Node; shape: unknown; brief: string }> {
    const members = this.rootRows(s).map((m) => {
      const item = this.memberItem(m, s);
      const requests = requestsOf(s, m.name).map((r) => [r.request_id, r.kind, r.plan]);
      const jobs = this.jobsOf(m.name).map((j) => { const i = jobItem(j); return [i.id, i.description]; });
      const merge = s.merges.get(m.name);
      const mergeRow = merge ? [merge.entry.id, merge.entry.state, merge.entry.waiting, merge.position, merge.entry.updated_at] : null;
      const box = this.containerOf(m);
      const shape = [item.id, requests.map((r) => r[0]), jobs.map((j) => j[0]), merge ? 'merge' : '', box ? 'container' : ''];
      return { key: rowKey(m), node: m, shape, brief: JSON.stringify([item.description, item.contextValue, item.accessibilityInformation?.label,
        (item.iconPath as vscode.ThemeIcon).id, (item.tooltip as vscode.MarkdownString).value, requests, jobs, mergeRow, box ? containerItem(box).description : null]) };
    });
    const mcp = this.mcpNodes(s).map((n) => {
      const i = mcpServerItem(n);
      return { key: rowKey(n), node: n, shape: i.id, brief: JSON.stringify([i.description, i.contextValue, (i.tooltip as vscode.MarkdownString).value]) };
    });
    const sandbox = this.sandboxNodes(s).map((n) => {
      const i = sandboxItem(n);
      return { key: rowKey(n), node: n, shape: i.id, brief: JSON.stringify([i.description, (i.tooltip as vscode.MarkdownString).value]) };
    });
    
    const hooks = this.hooksNodes(s).map((n) => {
      const i = hooksItem(n);
      return { key: rowKey(n), node: n, shape: i.id, brief: JSON.stringify([i.description, (i.tooltip as vscode.MarkdownString).value]) };
    });
    return [...members, ...mcp, ...sandbox, ...hooks];
  }

  /** One "Hooks" row after the MCP servers, when this window's agents run any. */
  private hooksNodes(s: Snapshot): HooksNode[] {
    const hooks = s.hasTeam ? this.agents.hooks?.() ?? [] : [];
    return hooks.length ? [this.kept<HooksNode>({ nodeKind: 'hooks', hooks })] : [];
  }

  /** The kept object for this row, brought up to date (the same object VS Code was given). */
  private kept<T extends RowNode>(fresh: T): T {
    const key = rowKey(fresh);
    const node = this.rowNodes.get(key) as T | undefined;
    if (!node) {
      this.rowNodes.set(key, fresh);
      return fresh;
    }
    return Object.assign(node, fresh);
  }

  private rootRows(s: Snapshot): MemberNode[] {
    return rootNodes(s).map((m) => this.kept(m));
  }

  /** A row per MCP server, after the members, while the team runs here (docs/mcp.md). */
  private mcpNodes(s: Snapshot): McpServerNode[] {
    return s.hasTeam ? (this.agents.mcpServers?.() ?? []).map((server) => this.kept<McpServerNode>({ nodeKind: 'mcpServer', server })) : [];
  }

  /** The sandbox's row, last, while there is a team (docs/security.md). */
  private sandboxNodes(s: Snapshot): SandboxNode[] {
    const report = s.hasTeam ? this.agents.sandbox?.() : undefined;
    return report ? [this.kept<SandboxNode>({ nodeKind: 'sandbox', report })] : [];
  }

  private load(): Promise<Snapshot> {
    const team = this.host.view;
    this.snapshot ??= Promise.all([
      team.roster().catch(() => undefined),
      team.requests({ kind: 'plan' }).catch(() => []),
      team.requests({ status: 'pending' }).catch(() => []),
      team.tasks().catch(() => []),
      this.host.hasTeam(),
      team.queue().catch(() => []),
    ]).then(async ([config, plans, pending, tasks, hasTeam, queue]) => ({
      members: config?.members ?? [], leadUsage: leadUsage(config), pending, plans, tasks: new Map(tasks.map((t) => [t.id, t])), hasTeam,
      merges: mergeNodes(queue),
      removable: await this.removableOf(config?.members ?? []),
    }));
    return this.snapshot;
  }

  private removableCache: { key: string; at: number; names: Promise<Set<string>> } | undefined;

  /** Asked only while a shut-down teammate has a branch; reused for a while (roster heartbeats reload often). */
  private removableOf(members: Member[]): Promise<Set<string>> {
    const gone = members.filter((m) => m.status === 'shutdown' && m.branch).map((m) => m.name).join(',');
    if (!gone || !this.agents.removableWorktrees) return Promise.resolve(new Set());
    const c = this.removableCache;
    if (c && c.key === gone && Date.now() - c.at < REMOVABLE_TTL_MS) return c.names;
    const names = this.agents.removableWorktrees().then((n) => new Set(n), () => new Set<string>());
    this.removableCache = { key: gone, at: Date.now(), names };
    return names;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    const s = await this.load();
    if (!node) return [...this.rootRows(s), ...this.mcpNodes(s), ...this.sandboxNodes(s), ...this.hooksNodes(s)];
    if (node.nodeKind !== 'member') return [];
    const box = this.containerOf(node);
    return [
      ...(box ? [box] : []),
      ...requestsOf(s, node.name).map((record): RequestNode => ({ nodeKind: 'request', record })),
      ...this.jobsOf(node.name).map((job): JobNode => ({ nodeKind: 'job', job })),
      ...(s.merges.has(node.name) ? [s.merges.get(node.name)!] : []),
    ];
  }

  /** The row under a container teammate; its state is this window's (a shut-down one's container is stopped). */
  private containerOf(node: MemberNode): ContainerNode | undefined {
    const m = node.member;
    if (!m?.container) return undefined;
    const state = this.agents.container?.(m.name) ?? (m.status === 'shutdown' ? { state: 'stopped' as const } : undefined);
    return { nodeKind: 'container', agent: m.name, ...(state ? { state } : {}) };
  }

  private jobsOf(agent: string): JobInfo[] {
    return this.agents.jobs?.(agent) ?? [];
  }

  async getTreeItem(node: Node): Promise<vscode.TreeItem> {
    const s = await this.load();
    if (node.nodeKind === 'mcpServer') return mcpServerItem(node);
    if (node.nodeKind === 'mergeEntry') return mergeEntryItem(node);
    if (node.nodeKind === 'sandbox') return sandboxItem(node);
    if (node.nodeKind === 'hooks') return hooksItem(node);
    if (node.nodeKind === 'container') return containerItem(node);
    return node.nodeKind === 'member' ? this.memberItem(node, s) : node.nodeKind === 'job' ? jobItem(node.job) : requestItem(node.record);
  }

  private memberItem(node: MemberNode, s: Snapshot): vscode.TreeItem {
    const activity = this.agents.activity(node.name);
    const m = node.member;
    const status = statusOf(m, activity, node.lead);
    // Plan mode holding it is said in words, beside whatever it is doing (reading, idle).
    const planning = m && isPlanning(m, s.plans) ? PLANNING_WORDS : undefined;
    // Another window runs it: said so, not by its random host id (Take Over Lead is on the row).
    const doing = activity?.kind === 'remote' ? 'in another window' : activityWords(activity);
    const detail = [planning, doing].filter(Boolean).join(', ') || undefined;
    const task = m?.current_task ? s.tasks.get(m.current_task) : undefined;
    const usage = node.lead ? s.leadUsage : m?.usage;
    const model = m?.model ?? this.agents.defaultModel();
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
    if (model !== this.agents.defaultModel() || providerLacks(model)) parts.push(modelWords(model));
    const item = new vscode.TreeItem(node.name);
    const children = requestsOf(s, node.name).length;
    const jobs = this.jobsOf(node.name).length;
    const merge = s.merges.has(node.name);
    const box = !!m?.container;
    item.collapsibleState = children || jobs || merge || box ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
    // A row that gains children needs a new id: VS Code keeps a known row's collapse state, so
    // a former leaf would stay collapsed and hide its new pending request.
    item.id = `${node.lead ? 'lead' : `member:${node.name}`}${children ? ':requests' : ''}${jobs ? ':jobs' : ''}${merge ? ':merge' : ''}${box ? ':container' : ''}`;
    item.description = parts.filter(Boolean).join(' · ');
    item.iconPath = statusIcon(status);
    // `.wt` marks a teammate with its own worktree (menus add diff / merge / keep / remove);
    // `.removable`: merged and clean, its teammate shut down — Remove Worktree is offered inline;
    // `member.lead.remote`: another window runs the lead — Take Over Lead is (lead-commands.ts).
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

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

function mergeNodes(entries: Parameters<typeof shownEntries>[0]): Map<string, MergeEntryNode> {
  const pos = positions(entries);
  const out = new Map<string, MergeEntryNode>();
  // Open entries come after the teammate's finished ones: the open one is what its row shows.
  for (const entry of shownEntries(entries)) out.set(entry.teammate, { nodeKind: 'mergeEntry', entry, position: pos.get(entry.id) });
  return out;
}

function rowKey(n: RowNode): string {
  if (n.nodeKind === 'sandbox') return 'sandbox';
  return n.nodeKind === 'mcpServer' ? `mcp:${n.server.name}` : n.nodeKind === 'hooks' ? 'hooks' : `member:${n.name}`;
}

function rootNodes(s: Snapshot): MemberNode[] {
  if (!s.hasTeam) return [];
  const lead: MemberNode = { nodeKind: 'member', name: 'lead', lead: true };
  return [lead, ...s.members.map((m): MemberNode => ({ nodeKind: 'member', name: m.name, lead: false, member: m }))];
}

function requestsOf(s: Snapshot, name: string): RequestRecord[] {
  return s.pending.filter((r) => (r.subject ?? (r.kind === 'plan' ? r.from : r.to)) === name);
}

/** The lead has no roster status: it works while its activity is anything but resting (or run elsewhere). */
export function leadStatus(activity: Activity | undefined): 'working' | 'idle' {
  return activity && !['idle', 'stopped', 'remote'].includes(activity.kind) ? 'working' : 'idle';
}

function statusOf(m: Member | undefined, activity: Activity | undefined, lead: boolean): string {
  if (lead) return leadStatus(activity);
  return m?.status ?? 'idle';
}

function statusIcon(status: string): vscode.ThemeIcon {
  if (status === 'working') return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.green'));
  if (status === 'shutdown') return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  return new vscode.ThemeIcon('circle-large-outline');
}

function requestItem(r: RequestRecord): vscode.TreeItem {
  const item = new vscode.TreeItem(requestLabel(r), vscode.TreeItemCollapsibleState.None);
  item.id = `request:${r.request_id}`;
  item.description = `pending · ${ago(r.created_at)}`;
  item.contextValue = `request.${r.kind}.pending`;
  item.iconPath = new vscode.ThemeIcon(r.kind === 'plan' ? 'checklist' : 'debug-disconnect');
  item.accessibilityInformation = { label: `${requestLabel(r)}, pending, request ${r.request_id}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  md.appendText(`${requestLabel(r)} (${r.request_id})\n\n`);
  if (r.plan) md.appendCodeblock(r.plan, 'markdown');
  item.tooltip = md;
  return item;
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

/** A background job under its agent: id and command, state in words. */
function jobItem(j: JobInfo): vscode.TreeItem {
  const command = j.command.split('\n')[0]!.slice(0, 80);
  const item = new vscode.TreeItem(`${j.id}: ${command}`, vscode.TreeItemCollapsibleState.None);
  const state = j.state === 'running' ? 'running' : j.state === 'killed' ? 'killed' : j.exitCode !== null ? `ended, exit code ${j.exitCode}` : `ended by signal ${j.signal}`;
  item.id = `job:${j.owner}:${j.id}`;
  item.description = state;
  item.contextValue = `job.${j.state}`;
  item.iconPath = new vscode.ThemeIcon(j.state === 'running' ? 'sync~spin' : j.exitCode === 0 ? 'pass' : 'error');
  item.accessibilityInformation = { label: `background job ${j.id}, ${command}, ${state}`, role: 'treeitem' };
  item.tooltip = new vscode.MarkdownString().appendCodeblock(j.command, 'sh');
  return item;
}
