// One kind of row of the Team view: which rows of it the tree shows, how one is drawn, and what
// of it is worth a redraw. Each kind is a views/team/*-row.ts; team-tree.ts composes them — the
// root rows (members, MCP servers, the sandbox, hooks) and the rows under a member (its
// container, pending requests, background jobs, merge-queue entry).
import type * as vscode from 'vscode';
import type { ContainerNode, HooksNode, JobNode, McpServerNode, MemberNode, MergeEntryNode, RequestNode, SandboxNode } from '../nodes';
import type { ActivitySource, Snapshot } from './team-snapshot';

export type RootNode = MemberNode | McpServerNode | SandboxNode | HooksNode;
export type ChildNode = ContainerNode | RequestNode | JobNode | MergeEntryNode;

export interface RootRows<N extends RootNode> {
  kind: N['nodeKind'];
  /** This kind's root rows, made fresh (the tree keeps one object per key across reads). */
  roots(s: Snapshot, agents: ActivitySource): N[];
  /** The row's key, the same across reads. */
  key(n: N): string;
  /** The row as drawn; `under` is what the tree shows beneath it. */
  item(n: N, s: Snapshot, agents: ActivitySource, under: readonly ChildNode[]): vscode.TreeItem;
}

export interface ChildRows<N extends ChildNode> {
  kind: N['nodeKind'];
  /** This kind's rows under a member. */
  under(m: MemberNode, s: Snapshot, agents: ActivitySource): N[];
  /** Which row it is among its member's: rows coming or going redraw the whole tree. */
  key(n: N): string;
  item(n: N): vscode.TreeItem;
  /** What the row shows that is worth redrawing its member's row for. */
  brief(n: N): unknown;
}
