// The Team view's row under a container teammate (docs/containers.md, "In VS Code"): where its
// container stands as this window knows it — each step of its start (choosing an engine, the
// image built or cached, creating, cloning), then running, stopped, or its engine unreachable
// and why. The words are the core's (containerWords), the same in every host.
import * as vscode from 'vscode';
import { containerWords } from '../../../core/session';
import type { ContainerNode } from '../nodes';
import type { ChildRows } from './row-kind';

const ICONS: Record<string, string> = { starting: 'loading~spin', running: 'vm-running', stopped: 'vm-outline', unreachable: 'warning' };

export const containerRows: ChildRows<ContainerNode> = {
  kind: 'container',
  // Its state is this window's (a shut-down teammate's container is stopped).
  under: (node, _s, agents) => {
    const m = node.member;
    if (!m?.container) return [];
    const state = agents.container?.(m.name) ?? (m.status === 'shutdown' ? { state: 'stopped' as const } : undefined);
    return [{ nodeKind: 'container', agent: m.name, ...(state ? { state } : {}) }];
  },
  key: () => 'container',
  item: containerItem,
  brief: (n) => containerItem(n).description,
};

function containerItem(node: ContainerNode): vscode.TreeItem {
  const s = node.state;
  const item = new vscode.TreeItem('container', vscode.TreeItemCollapsibleState.None);
  item.id = `container:${node.agent}`;
  item.description = containerWords(s);
  item.contextValue = `container.${s?.state ?? 'unknown'}`;
  item.iconPath = new vscode.ThemeIcon(ICONS[s?.state ?? ''] ?? 'vm', s?.state === 'unreachable' ? new vscode.ThemeColor('problemsWarningIcon.foreground') : undefined);
  item.accessibilityInformation = { label: `${node.agent}'s container, ${item.description}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  md.appendText(`${node.agent} runs in a container: its commands and file tools act on its clone of team/${node.agent} there.\n\n`);
  if (s?.host) md.appendText(`Engine: ${s.host}\n\n`);
  md.appendText(item.description);
  item.tooltip = md;
  return item;
}
