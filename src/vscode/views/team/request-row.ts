// A pending plan or shutdown request as a row under the teammate it is about, with inline
// Approve / Reject (contextValue `request.<kind>.pending`, matched in package.json); the plan
// itself in the tooltip.
import * as vscode from 'vscode';
import type { RequestRecord } from '../../../shared/schemas';
import { ago, requestLabel, type RequestNode } from '../nodes';
import type { ChildRows } from './row-kind';

export const requestRows: ChildRows<RequestNode> = {
  kind: 'request',
  under: (m, s) => s.pending.filter((r) => (r.subject ?? (r.kind === 'plan' ? r.from : r.to)) === m.name).map((record): RequestNode => ({ nodeKind: 'request', record })),
  key: (n) => n.record.request_id,
  item: (n) => requestItem(n.record),
  // Not its "… ago", which alone is no reason to redraw.
  brief: (n) => [n.record.request_id, n.record.kind, n.record.plan],
};

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
