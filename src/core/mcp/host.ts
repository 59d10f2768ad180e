// The MCP side of one host (docs/mcp.md): its manager and the gate its agents' calls pass,
// both asking the host's user through the Approver the host already gives the runtime.
import type { McpGate } from './agent-tools';
import { McpManager, type McpManagerOptions, type McpStartRequest } from './manager';
import type { RuleSource } from '../permissions/rules';

export interface McpHostOptions {
  /** Workspace servers start only while this says yes (default: yes; VS Code passes Workspace Trust). */
  trusted?: () => boolean;
  /** Permission rules naming MCP tools (the runner passes its settings'); a tool no rule names is asked about. */
  rules?: () => RuleSource | undefined;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
  /** Where `.mcp.json` edits are heard (the session passes its team's change feed). */
  watchConfig?: McpManagerOptions['watchConfig'];
}

/** The two questions MCP asks a host's user; see Approver in runtime/types.ts. */
export interface McpAsker {
  /**
   * A call no rule decided. "Always allow" writes one of `suggestions` (the tool's rule, then
   * its server's) where bash's "Always allow" writes (docs/permissions.md), and answers allow.
   */
  mcpTool?(agent: string, tool: string, input: unknown, signal: AbortSignal, suggestions?: string[]): Promise<'allow' | 'deny'>;
  mcpServerStart?(req: McpStartRequest, signal: AbortSignal): Promise<boolean>;
}

export function createHostMcp(
  root: string, opts: McpHostOptions | undefined, asker: McpAsker,
  report: (level: 'warning' | 'error', message: string, server?: string) => void,
): { mcp: McpManager; gate: McpGate } {
  const mcp = new McpManager({
    root, report,
    trusted: opts?.trusted ?? (() => true),
    // A host that cannot ask starts nothing and allows nothing it was not told to.
    approveStart: (req, signal) => asker.mcpServerStart?.(req, signal) ?? Promise.resolve(false),
    startTimeoutMs: opts?.startTimeoutMs,
    callTimeoutMs: opts?.callTimeoutMs,
    watchConfig: opts?.watchConfig,
  });
  const gate: McpGate = {
    rules: () => opts?.rules?.(),
    ask: (agent, tool, input, signal, suggestions) => asker.mcpTool?.(agent, tool, input, signal, suggestions) ?? Promise.resolve('deny'),
  };
  return { mcp, gate };
}
