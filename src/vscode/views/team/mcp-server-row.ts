// An MCP server this window's agents use (docs/mcp.md) as a row of the Team view, after the
// members while the team runs here: its state in words, its command line, tools and (failed)
// stderr in the tooltip; contextValue `mcp.server.<state>` offers Restart MCP Server
// (commands/mcp-commands.ts).
import * as vscode from 'vscode';
import { type McpServerInfo, stateWords } from '../../../core/session';
import type { McpServerNode } from '../nodes';
import type { RootRows } from './row-kind';

export const mcpServerRows: RootRows<McpServerNode> = {
  kind: 'mcpServer',
  roots: (s, agents) => (s.hasTeam ? (agents.mcpServers?.() ?? []).map((server): McpServerNode => ({ nodeKind: 'mcpServer', server })) : []),
  key: (n) => `mcp:${n.server.name}`,
  item: (n) => mcpServerItem(n),
};

function mcpServerItem(node: McpServerNode): vscode.TreeItem {
  const s: McpServerInfo = node.server;
  const item = new vscode.TreeItem(`MCP: ${s.name}`, vscode.TreeItemCollapsibleState.None);
  item.id = `mcp:${s.name}`;
  item.description = stateWords(s.state);
  item.contextValue = `mcp.server.${s.state.kind}`;
  item.iconPath = new vscode.ThemeIcon(s.state.kind === 'ready' ? 'plug' : s.state.kind === 'failed' ? 'error' : 'debug-disconnect',
    s.state.kind === 'failed' ? new vscode.ThemeColor('errorForeground') : undefined);
  item.accessibilityInformation = { label: `MCP server ${s.name}, ${stateWords(s.state)}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  md.appendText(`MCP server ${s.name} (${s.transport})\n\n`);
  if (s.commandLine) md.appendCodeblock(s.commandLine, 'sh');
  if (s.tools.length) md.appendText(`Tools: ${s.tools.map((t) => t.name).join(', ')}\n\n`);
  if (s.state.kind === 'failed' && s.state.stderr) md.appendCodeblock(s.state.stderr, 'text');
  item.tooltip = md;
  return item;
}
