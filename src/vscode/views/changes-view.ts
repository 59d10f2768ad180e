// The Changes view (agentTeams.changes): agent → file → change, newest first, read from the
// change records every process appends (docs/file-formats.md, "Changes"). Opening a change
// shows VS Code's diff editor over a read-only document provider; a click on a file row opens
// the agent's whole work on it (before its first change ↔ after its last, change-sides.ts),
// its changes still beneath. Revert Change restores the content before a change only while
// the file still holds what the change wrote.
// A new record redraws only its agent's rows (the tree is redrawn whole only when an agent
// comes or goes): a redraw rebuilds rows under the pointer and can swallow a click.
import * as vscode from 'vscode';
import { ACTIONS, type ActionScope, type ChangeLog, type ChangeRecord, mergeMarks, overlapsOf } from '../../core/session';
import { fileRowCommand, sideQuery, sideText } from './change-sides';

export const CHANGE_SCHEME = 'agent-teams-change';

export type ChangeNode =
  | ChangeAgentNode
  /** `others`: agents whose changes to the same file clash with this agent's (core/watch/overlaps.ts). */
  | { nodeKind: 'changeFile'; agent: string; file: string; changes: ChangeRecord[]; others: string[] }
  | { nodeKind: 'change'; change: ChangeRecord };

/** Kept from one load to the next (updated in place), so a change event can name the row. */
interface ChangeAgentNode { nodeKind: 'changeAgent'; agent: string; worktree?: string; count: number }

/** Coalesces a burst of appends (an agent writing several files) into one reload. */
const RELOAD_DELAY_MS = 100;

/** Per agent: how many records, the newest one's id and its files' overlaps — what its rows show. */
function signatures(all: ChangeRecord[], overlaps: Map<string, Set<string>> = new Map()): Map<string, string> {
  const count = new Map<string, number>();
  const last = new Map<string, string>();
  for (const c of all) {
    count.set(c.agent, (count.get(c.agent) ?? 0) + 1);
    last.set(c.agent, c.id);
  }
  const clashes = new Map<string, string[]>();
  for (const [key, others] of overlaps) {
    const agent = key.slice(0, key.indexOf('\0'));
    clashes.set(agent, [...(clashes.get(agent) ?? []), `${key}:${[...others].sort().join(',')}`]);
  }
  return new Map([...count].map(([agent, n]) => [agent, `${n} ${last.get(agent)} ${(clashes.get(agent) ?? []).sort().join(' ')}`]));
}

const where = (c: ChangeRecord): string => (c.root ? `${c.root}/${c.path}` : c.path);

function verb(c: ChangeRecord): string {
  if (c.tool === 'revert') return c.after === null ? 'reverted (removed)' : 'reverted';
  return c.before === null ? 'created' : c.tool === 'edit_file' ? 'edited' : 'overwritten';
}

export class ChangesProvider implements vscode.TreeDataProvider<ChangeNode>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ChangeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docChanged.event;
  private cache: Promise<ChangeRecord[]> | undefined;
  private readonly watcher: vscode.Disposable;
  private agentsNodes = new Map<string, ChangeAgentNode>();
  /** Per agent, what its rows showed at the last load: count and newest record. */
  private shown: Map<string, string> | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `changes`: the session's change feed for `.team/changes/*.jsonl` (TeamSession.watchFiles). */
  constructor(readonly log: ChangeLog, private readonly scope: ActionScope, changes: (onChange: () => void) => Promise<vscode.Disposable>) {
    const soon = (): void => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.refresh(), RELOAD_DELAY_MS);
    };
    const feed = changes(soon).catch(() => ({ dispose: () => undefined }));
    this.watcher = { dispose: () => void feed.then((d) => d.dispose()) };
  }

  /** Reads the records again and redraws what differs: the agents' rows that changed, or the tree when an agent came or went. */
  async refresh(): Promise<void> {
    const loading = this.log.list().then((r) => r.changes, () => []);
    this.cache = loading;
    const all = await loading;
    if (this.cache !== loading) return; // a newer load is under way and will redraw
    const before = this.shown;
    const now = signatures(all, await this.overlaps(all));
    if (this.cache !== loading) return;
    this.shown = now;
    const sameAgents = before !== undefined && before.size === now.size && [...now.keys()].every((a) => before.has(a));
    if (!sameAgents) {
      this.changed.fire(undefined);
      return;
    }
    // Only rows the view was given can be named; any other change redraws the tree.
    const given = this.agentsNodes;
    this.syncAgents(all);
    const rows = [...now].filter(([agent, sig]) => before.get(agent) !== sig).map(([agent]) => given.get(agent));
    if (rows.some((r) => r === undefined)) this.changed.fire(undefined);
    else for (const r of rows) this.changed.fire(r);
  }

  /** Which agents' changes to a file clash (core/watch/overlaps.ts), keyed `agent\0path`. */
  private async overlaps(all: ChangeRecord[]): Promise<Map<string, Set<string>>> {
    return overlapsOf(all, await mergeMarks(this.log.teamRoot).catch(() => new Map<string, number>()));
  }

  all(): Promise<ChangeRecord[]> {
    this.cache ??= this.log.list().then((r) => r.changes, () => []);
    return this.cache;
  }

  /** The agents' nodes for `all`, the existing objects updated in place. */
  private syncAgents(all: ChangeRecord[]): ChangeAgentNode[] {
    const by = new Map<string, ChangeRecord[]>();
    for (const c of all) by.set(c.agent, [...(by.get(c.agent) ?? []), c]);
    const nodes = new Map<string, ChangeAgentNode>();
    for (const [agent, cs] of by) {
      const node = this.agentsNodes.get(agent) ?? { nodeKind: 'changeAgent', agent, count: 0 };
      node.count = cs.length;
      const wt = cs.find((c) => c.root.startsWith('.worktrees/'))?.root.slice('.worktrees/'.length);
      if (wt) node.worktree = wt;
      else delete node.worktree;
      nodes.set(agent, node);
    }
    this.agentsNodes = nodes;
    return [...nodes.values()];
  }

  async find(id: string): Promise<ChangeRecord | undefined> {
    return (await this.all()).find((c) => c.id === id) ?? (await this.log.list()).changes.find((c) => c.id === id);
  }

  async getChildren(node?: ChangeNode): Promise<ChangeNode[]> {
    const all = await this.all();
    if (!node) {
      this.shown ??= signatures(all, await this.overlaps(all));
      return this.syncAgents(all);
    }
    if (node.nodeKind === 'changeAgent') {
      const files = new Map<string, ChangeRecord[]>();
      for (const c of all) if (c.agent === node.agent) files.set(where(c), [...(files.get(where(c)) ?? []), c]);
      const overlaps = await this.overlaps(all);
      return [...files].sort((a, b) => a[0].localeCompare(b[0])).map(([file, changes]) => ({
        nodeKind: 'changeFile', agent: node.agent, file, changes, others: [...(overlaps.get(`${node.agent}\0${changes[0]!.path}`) ?? [])].sort(),
      }));
    }
    if (node.nodeKind === 'changeFile') return [...node.changes].reverse().map((change) => ({ nodeKind: 'change', change }));
    return [];
  }

  getParent(node: ChangeNode): ChangeNode | undefined {
    if (node.nodeKind === 'changeAgent') return undefined;
    const agent = node.nodeKind === 'change' ? node.change.agent : node.agent;
    return this.agentsNodes.get(agent);
  }

  agentNode(agent: string): ChangeNode | undefined {
    return this.agentsNodes.get(agent);
  }

  getTreeItem(node: ChangeNode): vscode.TreeItem {
    if (node.nodeKind === 'changeAgent') {
      const item = new vscode.TreeItem(node.agent, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `agent:${node.agent}`;
      item.description = `${node.count} change${node.count === 1 ? '' : 's'}${node.worktree ? ` · worktree ${node.worktree}` : ''}`;
      item.contextValue = node.worktree ? 'changeAgentWorktree' : 'changeAgent';
      item.iconPath = new vscode.ThemeIcon('person');
      return item;
    }
    if (node.nodeKind === 'changeFile') {
      const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `file:${node.agent}:${node.file}`;
      item.resourceUri = vscode.Uri.file(node.file);
      const also = node.others.length ? `also changed by ${node.others.join(', ')}` : '';
      item.description = [`${node.changes.length}`, also].filter(Boolean).join(' · ');
      if (also) {
        item.iconPath = new vscode.ThemeIcon('warning');
        item.tooltip = `${node.file}: ${also}, and neither change has been merged into the other's branch`;
      }
      item.accessibilityInformation = { label: `${node.file}, ${node.changes.length} change${node.changes.length === 1 ? '' : 's'}${also ? `, ${also}` : ''}` };
      item.contextValue = 'changeFile';
      // A click opens the whole diff, as in Source Control; the twistie shows each change.
      item.command = fileRowCommand(node.changes);
      return item;
    }
    const c = node.change;
    const time = new Date(c.ts * 1000).toLocaleTimeString();
    const item = new vscode.TreeItem(`${verb(c)} · ${time}`, vscode.TreeItemCollapsibleState.None);
    item.id = `change:${c.id}`;
    item.description = [c.task !== null ? `task #${c.task}` : '', `${c.before?.bytes ?? 0} → ${c.after?.bytes ?? 0} B`].filter(Boolean).join(' · ');
    item.tooltip = `${c.agent} ${verb(c)} ${where(c)} at ${new Date(c.ts * 1000).toLocaleString()}${c.task !== null ? ` (task #${c.task})` : ''}`;
    item.accessibilityInformation = { label: `${c.agent} ${verb(c)} ${where(c)} at ${time}` };
    item.contextValue = 'change';
    item.iconPath = new vscode.ThemeIcon(c.before === null ? 'diff-added' : c.after === null ? 'diff-removed' : 'diff-modified');
    item.command = { command: 'agentTeams.openChange', title: 'Open Change', arguments: [{ id: c.id }] };
    return item;
  }

  /** `agent-teams-change:/<path>?id=<id>&side=before|after`: one side of a change, read-only. */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    return sideText(this.log, await this.find(q.get('id') ?? ''), q.get('side') === 'before' ? 'before' : 'after');
  }

  /** One change before ↔ after; with `last`, from before `c` to after `last` (a file row's span). */
  async openDiff(c: ChangeRecord, last: ChangeRecord = c): Promise<void> {
    const uri = (r: ChangeRecord, side: 'before' | 'after') => vscode.Uri.from({ scheme: CHANGE_SCHEME, path: `/${where(r)}`, query: sideQuery(r.id, side) });
    const at = (r: ChangeRecord) => new Date(r.ts * 1000).toLocaleTimeString();
    const title = last === c
      ? `${where(c)} · ${c.agent} ${verb(c)} ${at(c)} (before ↔ after)`
      : `${where(c)} · ${c.agent}'s changes ${at(c)}–${at(last)} (before the first ↔ after the last)`;
    await vscode.commands.executeCommand('vscode.diff', uri(c, 'before'), uri(last, 'after'), title, { preview: true });
  }

  async revert(c: ChangeRecord): Promise<boolean> {
    const r = await ACTIONS.revertChange.run(this.scope, { id: c.id });
    await this.refresh();
    if (r.ok) void vscode.window.showInformationMessage(r.message);
    else void vscode.window.showWarningMessage(r.message);
    return r.ok;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher.dispose();
    this.changed.dispose();
    this.docChanged.dispose();
  }
}
