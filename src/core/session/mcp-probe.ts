// `agent-teams mcp --tools` (docs/mcp.md): the folder's MCP servers started once, without a
// team or agents, listed with their tools, and stopped. A host asks for the list; it never
// holds the MCP manager.
import { McpManager, type McpManagerOptions, type McpServerInfo } from '../mcp/manager';

export async function probeMcpServers(opts: Pick<McpManagerOptions, 'root' | 'trusted' | 'approveStart'>): Promise<McpServerInfo[]> {
  const mcp = new McpManager({ ...opts, report: () => undefined });
  try {
    await mcp.ensureStarted();
    return mcp.list();
  } finally {
    await mcp.dispose();
  }
}
