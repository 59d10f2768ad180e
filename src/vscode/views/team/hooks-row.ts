// The Team view's "Hooks" row (docs/hooks.md): how many hooks this window's agents run and
// for which events; the tooltip lists each event's hooks with matcher, command and the file
// it came from. Shown once the team runs here (hooks load with the agents, in a trusted
// workspace only).
import * as vscode from 'vscode';
import { HOOK_EVENTS, type HookSpec } from '../../../core/session';
import type { HooksNode } from '../nodes';
import type { RootRows } from './row-kind';

export const hooksRows: RootRows<HooksNode> = {
  kind: 'hooks',
  roots: (s, agents) => {
    const hooks = s.hasTeam ? agents.hooks?.() ?? [] : [];
    return hooks.length ? [{ nodeKind: 'hooks', hooks }] : [];
  },
  key: () => 'hooks',
  item: (n) => hooksItem(n),
};

function hooksItem(node: HooksNode): vscode.TreeItem {
  const hooks = node.hooks;
  const events = HOOK_EVENTS.filter((e) => hooks.some((h) => h.event === e));
  const item = new vscode.TreeItem('Hooks', vscode.TreeItemCollapsibleState.None);
  item.id = 'hooks';
  item.description = `${hooks.length} · ${events.join(', ')}`;
  item.contextValue = 'hooks';
  item.iconPath = new vscode.ThemeIcon('zap');
  item.accessibilityInformation = { label: `Hooks: ${hooks.length}, for ${events.join(', ')}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  for (const e of events) {
    md.appendMarkdown(`**${e}**\n\n`);
    for (const h of hooks.filter((x: HookSpec) => x.event === e)) {
      md.appendText(`${h.matcher ? `${h.matcher}: ` : ''}`);
      md.appendCodeblock(h.command, 'sh');
      md.appendText(`(${h.source}, timeout ${h.timeoutSec} s)\n\n`);
    }
  }
  item.tooltip = md;
  return item;
}
