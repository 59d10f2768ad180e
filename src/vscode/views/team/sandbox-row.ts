// The Team view's "Sandbox" row (docs/security.md), while there is a team: whether commands run
// in the sandbox and why not (sandbox-words.ts), its policy in the tooltip; contextValue
// `sandbox.on|off|missing`. The report is SandboxStatus's (views/sandbox-status.ts).
import * as vscode from 'vscode';
import { sandboxReportText } from '../../../core/session';
import type { SandboxNode } from '../nodes';
import { sandboxWords } from '../sandbox-words';
import type { RootRows } from './row-kind';

export const sandboxRows: RootRows<SandboxNode> = {
  kind: 'sandbox',
  roots: (s, agents) => {
    const report = s.hasTeam ? agents.sandbox?.() : undefined;
    return report ? [{ nodeKind: 'sandbox', report }] : [];
  },
  key: () => 'sandbox',
  item: (n) => sandboxItem(n),
};

function sandboxItem(node: SandboxNode): vscode.TreeItem {
  const r = node.report;
  const item = new vscode.TreeItem('Sandbox', vscode.TreeItemCollapsibleState.None);
  item.id = 'sandbox';
  item.description = sandboxWords(r);
  item.contextValue = `sandbox.${r.active ? 'on' : r.mode === 'off' ? 'off' : 'missing'}`;
  item.iconPath = new vscode.ThemeIcon(r.active ? 'shield' : 'warning', r.active || r.mode === 'off' ? undefined : new vscode.ThemeColor('problemsWarningIcon.foreground'));
  item.accessibilityInformation = { label: `Sandbox: ${sandboxWords(r)}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  md.appendCodeblock(sandboxReportText(r), 'text');
  item.tooltip = md;
  return item;
}
