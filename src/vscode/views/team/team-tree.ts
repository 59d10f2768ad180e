// The Team view (agentTeams.team): the lead and every teammate, then this window's MCP servers,
// the sandbox and the hooks; under a member its container, its pending plan and shutdown
// requests, its background jobs and its merge-queue entry. Each kind of row is drawn by its own
// views/team/*-row.ts (row-kind.ts); this provider composes them over one read of the team's
// files (team-snapshot.ts) and redraws only the rows whose drawing changed.
import * as vscode from 'vscode';
import type { TeamHost } from '../../host/team-host';
import { containerRows } from './container-row';
import { hooksRows } from './hooks-row';
import { jobRows } from './job-row';
import { mcpServerRows } from './mcp-server-row';
import { memberRows } from './member-row';
import { mergeEntryRows } from './merge-entry-row';
import { requestRows } from './request-row';
import type { ChildNode, ChildRows, RootNode, RootRows } from './row-kind';
import { sandboxRows } from './sandbox-row';
import { type ActivitySource, type Snapshot, SnapshotReader } from './team-snapshot';

type Node = RootNode | ChildNode;

/** The root rows' kinds, in the order they are shown. */
const ROOTS: RootRows<RootNode>[] = [memberRows, mcpServerRows, sandboxRows, hooksRows];
/** The kinds of row under a member, in the order they are shown. */
const CHILDREN: ChildRows<ChildNode>[] = [containerRows, requestRows, jobRows, mergeEntryRows];

const rootKind = (n: RootNode): RootRows<RootNode> => ROOTS.find((k) => k.kind === n.nodeKind)!;
const childKind = (n: ChildNode): ChildRows<ChildNode> => CHILDREN.find((k) => k.kind === n.nodeKind)!;
const isChild = (n: Node): n is ChildNode => CHILDREN.some((k) => k.kind === n.nodeKind);

export class TeamTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly snapshots: SnapshotReader;
  /** The rows and their children's ids: when these change, the whole tree is redrawn. */
  private shape: string | undefined;
  /** What each root row (and its children) shows, in brief: a row that would show the same is not redrawn. */
  private shown = new Map<string, string>();
  /** One object per root row, kept across reads: VS Code redraws a row it is handed by identity. */
  private readonly rowNodes = new Map<string, RootNode>();
  private readonly sub: vscode.Disposable;

  constructor(host: Pick<TeamHost, 'view' | 'hasTeam' | 'onDidChange'>, private readonly agents: ActivitySource) {
    this.snapshots = new SnapshotReader(host, agents);
    this.sub = host.onDidChange((kinds) => {
      // A worktree merged, kept or removed (by any host) changes which are removable.
      if (kinds.has('worktrees')) this.snapshots.forget(true);
      if (kinds.has('roster') || kinds.has('requests') || kinds.has('tasks') || kinds.has('queue') || kinds.has('worktrees')) this.refresh();
      // Activity words come from the runtime, not from files: redraw without re-reading them.
      else if (kinds.has('activity')) void this.redrawIfChanged(this.snapshots.read());
    });
  }

  /**
   * Re-reads the team files and redraws if what the view shows changed (or always, `force`). Most roster writes
   * (lease heartbeats, token counts below the shown precision) change nothing visible, and a
   * redraw rebuilds each row's inline actions: a click landing on one mid-redraw is lost.
   */
  refresh(force = false): void {
    this.snapshots.forget(force);
    void this.redrawIfChanged(this.snapshots.read(), force);
  }

  /**
   * `force`: the user asked (Refresh, a command), so "… ago" and the like are brought up to date too.
   * Rows that changed in place are redrawn alone (with their children): an agent's status or an
   * MCP server's state changing never rebuilds another row's inline actions, such as Approve Plan
   * under the user's pointer. Rows coming or going (or gaining children) redraw the tree.
   */
  private async redrawIfChanged(loading: Promise<Snapshot>, force = false): Promise<void> {
    const s = await loading;
    if (!this.snapshots.isLatest(loading)) return; // a newer read is on its way
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

  /** Each root row as drawn with its children, except what a kind leaves out of its brief (a request's "… ago"). */
  private rows(s: Snapshot): Array<{ key: string; node: RootNode; shape: unknown; brief: string }> {
    return this.roots(s).map((node) => {
      const under = this.under(node, s);
      const item = rootKind(node).item(node, s, this.agents, under);
      const shape = [item.id, under.map((c) => childKind(c).key(c))];
      return { key: rootKind(node).key(node), node, shape, brief: JSON.stringify([drawn(item), under.map((c) => childKind(c).brief(c))]) };
    });
  }

  /** The root rows, each the same object VS Code was given before, brought up to date. */
  private roots(s: Snapshot): RootNode[] {
    return ROOTS.flatMap((k) => k.roots(s, this.agents).map((fresh) => {
      const key = k.key(fresh);
      const node = this.rowNodes.get(key);
      if (!node) {
        this.rowNodes.set(key, fresh);
        return fresh;
      }
      return Object.assign(node, fresh);
    }));
  }

  private under(node: RootNode, s: Snapshot): ChildNode[] {
    return node.nodeKind === 'member' ? CHILDREN.flatMap((k) => k.under(node, s, this.agents)) : [];
  }

  async getChildren(node?: Node): Promise<Node[]> {
    const s = await this.snapshots.read();
    if (!node) return this.roots(s);
    return isChild(node) ? [] : this.under(node, s);
  }

  async getTreeItem(node: Node): Promise<vscode.TreeItem> {
    const s = await this.snapshots.read();
    if (isChild(node)) return childKind(node).item(node);
    return rootKind(node).item(node, s, this.agents, this.under(node, s));
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

/** What a root row shows, for telling whether it changed. */
function drawn(item: vscode.TreeItem): unknown[] {
  const tip = item.tooltip;
  return [item.description, item.contextValue, item.accessibilityInformation?.label, item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
    typeof tip === 'string' ? tip : tip?.value];
}
