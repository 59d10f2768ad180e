// The sandbox as the Team view and the status bar show it (docs/security.md): one row, "Sandbox",
// saying whether commands run in it and why not, its policy in the tooltip. The report is read
// when the window starts and again when a setting changes; it lives in memory like activity.
import * as vscode from 'vscode';
import { sandboxReportText, type SandboxReport } from '../../core/session';
import type { TeamSession } from '../../core/session';
import type { SandboxNode } from './nodes';
import { sandboxWords } from './sandbox-words';

export class SandboxStatus {
  report: SandboxReport | undefined;

  constructor(private readonly session: Pick<TeamSession, 'sandboxReport'>, private readonly changed: () => void, private readonly log: vscode.LogOutputChannel) {}

  async refresh(): Promise<void> {
    try {
      this.report = await this.session.sandboxReport();
      this.changed();
    } catch (e) {
      this.log.warn(`could not read the sandbox's state: ${String(e)}`);
    }
  }
}

export function sandboxItem(node: SandboxNode): vscode.TreeItem {
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
