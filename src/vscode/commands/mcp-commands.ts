// MCP in VS Code (docs/mcp.md): "Restart MCP Server" for a server that failed (from its row in
// the Team view — views/team/mcp-server-row.ts —, the failure notification, or the palette).
import * as vscode from 'vscode';
import { ACTIONS, stateWords } from '../../core/session';
import type { CommandContext } from './command-context';
import type { CommandSpec } from './command-spec';
import { actionSpec } from './spec-from-action';
import type { TreeNode } from '../views/nodes';
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
