// MCP in VS Code (docs/mcp.md): "Restart MCP Server" for a server that failed (from its row in
// the Team view, the failure notification, or the palette), and the rows themselves.
import * as vscode from 'vscode';
import { ACTIONS, type McpServerInfo, stateWords } from '../../core/session';
import type { CommandContext } from './command-context';
import type { CommandSpec } from './command-spec';
import { actionSpec } from './spec-from-action';
import type { McpServerNode, TreeNode } from '../views/nodes';
import { CANCEL, type Asked } from './questions';

export const MCP_RESTART = 'agentTeams.mcpRestart';

async function pickServer(ctx: CommandContext): Promise<Asked<string>> {
  const servers = ctx.session.mcpServers();
  if (!servers.length) throw new Error('No MCP server has been started: they start from .mcp.json when the first agent works.');
  const picked = await vscode.window.showQuickPick(
    servers.map((s) => ({ label: s.name, description: stateWords(s.state), value: s.name })), { title: 'Restart MCP Server', ignoreFocusOut: true });
  return picked ? picked.value : CANCEL;
}

export const MCP_COMMANDS: CommandSpec[] = [actionSpec(ACTIONS.mcpRestart, {
  id: MCP_RESTART, title: 'Restart MCP Server', runsAgents: true,
  fields: [{ key: 'server', ask: pickServer }],
  fromNode: (n: TreeNode) => (n.nodeKind === 'mcpServer' ? { server: n.server.name } : undefined),
  after(s, a) {
    if (s) void vscode.window.showInformationMessage(`Agent Teams: ${ACTIONS.mcpRestart.describe(s, a)}`);
    return s?.state;
  },
})];

export function mcpServerItem(node: McpServerNode): vscode.TreeItem {
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
