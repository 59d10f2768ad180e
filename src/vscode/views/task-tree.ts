// The Tasks view (agentTeams.tasks): the board grouped by status; each task shows its owner
// and what blocks it, in the row and in its accessibility label. A change to the board redraws
// only what it changed: a task's own row, or the groups whose list of tasks changed, or the
// whole view when a group comes or goes. A redraw rebuilds rows (their inline Complete Task)
// under the pointer, and on a busy board a click landing mid-redraw would be lost. The view
// re-reads on every board event, the last of which is the board's change record
// (.tasks/.generation, written after the task files): a read woken by a task file may see the
// board as it was, and finds nothing to redraw; the read that follows the record sees it.
import * as vscode from 'vscode';
import type { Task, TaskStatus } from '../../shared/schemas';
import { TASK_STATUS_WORDS, type TaskGroupNode, type TaskNode } from './nodes';
import type { TeamHost } from '../host/team-host';

type Node = TaskGroupNode | TaskNode;
const ORDER: TaskStatus[] = ['in_progress', 'pending', 'completed'];

export class TaskTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private tasks: Promise<Task[]> | undefined;
  private readonly sub: vscode.Disposable;
  /** One object per group and per task, kept across reads and updated in place: VS Code redraws a row it is handed by identity. */
  private readonly groups = new Map<TaskStatus, TaskGroupNode>();
  private readonly taskNodes = new Map<number, TaskNode>();
  /** What the view was last given: the groups' task ids, and each task's row in brief. */
  private shown: { groups: string; lists: Map<TaskStatus, string>; rows: Map<number, string> } | undefined;

  constructor(private readonly host: TeamHost) {
    this.sub = host.onDidChange((kinds) => {
      if (kinds.has('tasks')) void this.refresh();
    });
  }

  /** Re-reads the board and redraws what differs (everything when `force`: the user asked). */
  async refresh(force = false): Promise<void> {
    const loading = this.read();
    this.tasks = loading;
    const tasks = await loading;
    if (this.tasks !== loading) return; // a newer read is on its way
    const before = this.shown;
    const now = this.summary(tasks);
    this.shown = now;
    for (const id of this.taskNodes.keys()) if (!now.rows.has(id)) this.taskNodes.delete(id);
    if (force || !before || before.groups !== now.groups) {
      this.changed.fire(undefined);
      return;
    }
    const redraw: Node[] = [];
    for (const [status, list] of now.lists) {
      if (before.lists.get(status) !== list) redraw.push(this.group(status, tasks));
    }
    const redrawnGroups = new Set(redraw.map((g) => (g as TaskGroupNode).status));
    for (const t of tasks) {
      const row = now.rows.get(t.id);
      const node = this.taskNodes.get(t.id);
      if (redrawnGroups.has(t.status) || !node || before.rows.get(t.id) === row) continue;
      node.task = t;
      redraw.push(node);
    }
    for (const n of redraw) this.changed.fire(n);
  }

  private read(): Promise<Task[]> {
    return this.host.view.tasks().catch(() => []);
  }

  private load(): Promise<Task[]> {
    this.tasks ??= this.read();
    return this.tasks;
  }

  private summary(tasks: Task[]): NonNullable<TaskTreeProvider['shown']> {
    const lists = new Map<TaskStatus, string>();
    for (const status of ORDER) {
      const ids = tasks.filter((t) => t.status === status).map((t) => t.id);
      if (ids.length) lists.set(status, ids.join(','));
    }
    const rows = new Map(tasks.map((t) => {
      const i = taskItem(t);
      return [t.id, JSON.stringify([i.label, i.description, i.contextValue, i.accessibilityInformation?.label, (i.tooltip as vscode.MarkdownString).value])];
    }));
    return { groups: [...lists.keys()].join(','), lists, rows };
  }

  private group(status: TaskStatus, tasks: Task[]): TaskGroupNode {
    const node = this.groups.get(status) ?? { nodeKind: 'taskGroup', status, count: 0 };
    node.count = tasks.filter((t) => t.status === status).length;
    this.groups.set(status, node);
    return node;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    const tasks = await this.load();
    if (!node) {
      this.shown ??= this.summary(tasks);
      return ORDER.map((status) => this.group(status, tasks)).filter((g) => g.count > 0);
    }
    if (node.nodeKind !== 'taskGroup') return [];
    return tasks.filter((t) => t.status === node.status).map((task) => {
      const n = this.taskNodes.get(task.id) ?? { nodeKind: 'task', task };
      n.task = task;
      this.taskNodes.set(task.id, n);
      return n;
    });
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
