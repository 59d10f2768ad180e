// MCP test helpers: real servers from the registry (installed as dev dependencies, run
// offline) and our SDK-built faulty server, wired into `.mcp.json` in a temp workspace.
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { McpManager, type McpManagerOptions, type McpStartRequest } from '../../src/core/mcp/manager';
import { tempDir } from '../helpers/tmp';

type Ctx = Parameters<typeof tempDir>[0];

export const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY = resolve('node_modules/@modelcontextprotocol/server-memory/dist/index.js');
export const FAULTY = join(__dirname, '..', 'fixtures', 'mcp-faulty-server.js');

export const node = (script: string, ...args: string[]) => ({ command: process.execPath, args: [script, ...args] });

export async function workspaceWith(t: Ctx, mcpServers: Record<string, unknown> | string): Promise<string> {
  const root = await tempDir(t, 'agent-teams-mcp-');
  const text = typeof mcpServers === 'string' ? mcpServers : JSON.stringify({ mcpServers }, null, 2);
  await writeFile(join(root, '.mcp.json'), text);
  return root;
}

export interface TestManager {
  mcp: McpManager;
  reports: string[];
  asked: McpStartRequest[];
}

export function manager(t: Ctx, root: string, opts: Partial<McpManagerOptions> = {}): TestManager {
  const reports: string[] = [];
  const asked: McpStartRequest[] = [];
  const mcp = new McpManager({
    root,
    trusted: () => true,
    approveStart: async (req) => (asked.push(req), true),
    report: (_level, message) => reports.push(message),
    startTimeoutMs: 15_000,
    callTimeoutMs: 15_000,
    ...opts,
  });
  t.after(() => mcp.dispose());
  return { mcp, reports, asked };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
