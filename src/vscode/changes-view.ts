// The Changes view (agentTeams.changes): agent → file → change, newest first, read from the
// change records every process appends (docs/file-formats.md, "Changes"). Opening a change
// shows VS Code's diff editor over a read-only document provider; Revert Change restores the
// content before it only while the file still holds what the change wrote.
import * as vscode from 'vscode';
import { ChangeLog, type ChangeRecord } from '../core/watch/change-log';
import { revertChange } from '../core/watch/changes';

export const CHANGE_SCHEME = 'agent-teams-change';

export type ChangeNode =
  | { nodeKind: 'changeAgent'; agent: string; worktree?: string; count: number }
  | { nodeKind: 'changeFile'; agent: string; file: string; changes: ChangeRecord[] }
  | { nodeKind: 'change'; change: ChangeRecord };

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
  readonly log: ChangeLog;
  private cache: Promise<ChangeRecord[]> | undefined;
  private readonly watcher: vscode.FileSystemWatcher;
  private agentsNodes = new Map<string, ChangeNode>();

  constructor(root: string) {
    this.log = new ChangeLog(root);
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '.team/changes/*.jsonl'));
    const refresh = (): void => this.refresh();
    this.watcher.onDidChange(refresh);
    this.watcher.onDidCreate(refresh);
    this.watcher.onDidDelete(refresh);
  }

  refresh(): void {
    this.cache = undefined;
    this.changed.fire(undefined);
  }

  all(): Promise<ChangeRecord[]> {
    this.cache ??= this.log.list().then((r) => r.changes, () => []);
    return this.cache;
  }

  async find(id: string): Promise<ChangeRecord | undefined> {
    return (await this.all()).find((c) => c.id === id) ?? (await this.log.list()).changes.find((c) => c.id === id);
  }

  async getChildren(node?: ChangeNode): Promise<ChangeNode[]> {
    const all = await this.all();
    if (!node) {
      const by = new Map<string, ChangeRecord[]>();
      for (const c of all) by.set(c.agent, [...(by.get(c.agent) ?? []), c]);
      this.agentsNodes = new Map([...by].map(([agent, cs]) => {
        const wt = cs.find((c) => c.root.startsWith('.worktrees/'))?.root.slice('.worktrees/'.length);
        return [agent, { nodeKind: 'changeAgent', agent, count: cs.length, ...(wt ? { worktree: wt } : {}) } as ChangeNode];
      }));
      return [...this.agentsNodes.values()];
    }
    if (node.nodeKind === 'changeAgent') {
      const files = new Map<string, ChangeRecord[]>();
      for (const c of all) if (c.agent === node.agent) files.set(where(c), [...(files.get(where(c)) ?? []), c]);
      return [...files].sort((a, b) => a[0].localeCompare(b[0])).map(([file, changes]) => ({ nodeKind: 'changeFile', agent: node.agent, file, changes }));
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
      item.description = `${node.changes.length}`;
      item.contextValue = 'changeFile';
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
    const c = await this.find(q.get('id') ?? '');
    if (!c) return '(this change is no longer recorded)';
    const side = q.get('side') === 'before' ? c.before : c.after;
    if (side === null) return '';
    const buf = await this.log.content(side);
    if (buf) return buf.toString('utf8');
    return `(content not recorded: ${side.why === 'binary' ? 'binary file' : side.why === 'too_large' ? 'over 1 MB' : 'not stored'}; ${side.bytes} bytes)`;
  }

  async openDiff(c: ChangeRecord): Promise<void> {
    const uri = (side: string) => vscode.Uri.from({ scheme: CHANGE_SCHEME, path: `/${where(c)}`, query: `id=${c.id}&side=${side}` });
    const title = `${where(c)} · ${c.agent} ${verb(c)} ${new Date(c.ts * 1000).toLocaleTimeString()} (before ↔ after)`;
    await vscode.commands.executeCommand('vscode.diff', uri('before'), uri('after'), title, { preview: true });
  }

  async revert(c: ChangeRecord): Promise<boolean> {
    const r = await revertChange(this.log, c, 'user');
    this.refresh();
    if (r.ok) void vscode.window.showInformationMessage(r.message);
    else void vscode.window.showWarningMessage(r.message);
    return r.ok;
  }

  dispose(): void {
    this.watcher.dispose();
    this.changed.dispose();
    this.docChanged.dispose();
  }
}
