// The Tasks view (agentTeams.tasks): the board grouped by status; each task shows its owner
// and what blocks it, in the row and in its accessibility label.
import * as vscode from 'vscode';
import type { Task, TaskStatus } from '../shared/team-schemas';
import { TASK_STATUS_WORDS, type TaskGroupNode, type TaskNode } from './nodes';
import type { TeamHost } from './team-host';

type Node = TaskGroupNode | TaskNode;
const ORDER: TaskStatus[] = ['in_progress', 'pending', 'completed'];

export class TaskTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private tasks: Promise<Task[]> | undefined;
  private readonly sub: vscode.Disposable;

  constructor(private readonly host: TeamHost) {
    this.sub = host.onDidChange((kinds) => {
      if (kinds.has('tasks')) this.refresh();
    });
  }

  refresh(): void {
    this.tasks = undefined;
    this.changed.fire(undefined);
  }

  private load(): Promise<Task[]> {
    this.tasks ??= this.host.team.tasks.list().catch(() => []);
    return this.tasks;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    const tasks = await this.load();
    if (!node) {
      return ORDER.map((status): TaskGroupNode => ({ nodeKind: 'taskGroup', status, count: tasks.filter((t) => t.status === status).length }))
        .filter((g) => g.count > 0);
    }
    if (node.nodeKind !== 'taskGroup') return [];
    return tasks.filter((t) => t.status === node.status).map((task): TaskNode => ({ nodeKind: 'task', task }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    return node.nodeKind === 'taskGroup' ? groupItem(node) : taskItem(node.task);
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

function groupItem(g: TaskGroupNode): vscode.TreeItem {
  const label = TASK_STATUS_WORDS[g.status];
  const item = new vscode.TreeItem(label, g.status === 'completed'
    ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
  item.id = `taskGroup:${g.status}`;
  item.description = String(g.count);
  item.contextValue = `taskGroup.${g.status}`;
  item.accessibilityInformation = { label: `${label}, ${g.count} task${g.count === 1 ? '' : 's'}` };
  return item;
}

export function taskDescription(t: Task): string {
  const parts: string[] = [];
  if (t.owner) parts.push(`@${t.owner}`);
  else if (t.status !== 'completed') parts.push('unowned');
  if (t.blockedBy.length) parts.push(`blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')}`);
  if (t.files?.length) parts.push(`files: ${t.files.join(', ')}`);
  return parts.join(' · ');
}

function taskItem(t: Task): vscode.TreeItem {
  const blocked = t.status === 'pending' && t.blockedBy.length > 0;
  const item = new vscode.TreeItem(`#${t.id} ${t.subject}`, vscode.TreeItemCollapsibleState.None);
  item.id = `task:${t.id}`;
  item.description = taskDescription(t);
  item.contextValue = `task.${t.status}${blocked ? '.blocked' : ''}`;
  item.iconPath = new vscode.ThemeIcon(
    t.status === 'completed' ? 'pass-filled' : t.status === 'in_progress' ? 'play-circle' : blocked ? 'lock' : 'circle-large-outline');
  const words = [`task ${t.id}`, t.subject, TASK_STATUS_WORDS[t.status].toLowerCase(),
    t.owner ? `owned by ${t.owner}` : t.status === 'completed' ? undefined : 'unowned',
    t.blockedBy.length ? `blocked by ${t.blockedBy.map((b) => `task ${b}`).join(', ')}` : undefined,
    t.files?.length ? `owns files ${t.files.join(', ')}` : undefined];
  item.accessibilityInformation = { label: words.filter(Boolean).join(', ') };
  const md = new vscode.MarkdownString();
  md.appendText(`#${t.id} ${t.subject}\n\n${TASK_STATUS_WORDS[t.status]}${t.owner ? ` · ${t.owner}` : ''}\n\n`);
  if (t.description) md.appendText(t.description);
  if (t.files?.length) md.appendText(`\n\nFiles it may change: ${t.files.join(', ')}`);
  item.tooltip = md;
  return item;
}
