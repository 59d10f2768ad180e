// MCP tools in the agents' tool sets (docs/mcp.md): each tool a running server offers becomes
// a `defineJsonTool` (the server's own input schema; the server validates its input), so it
// is dispatched, capped and plan-gated like a built-in one. Tools the server marks read-only
// pass the plan gate; any other may change the world and waits like bash. The sets are
// rebuilt only when a server's tool list changes, so the array the model is sent (and the
// prompt cache behind it) stays the same between changes.
import { callMcpTool, mcpToolAllowed, type McpGate } from '../../mcp/agent-tools';
import type { McpManager } from '../../mcp/manager';
import type { ModelTool } from '../../model';
import { defineJsonTool, type ToolDefinition } from './definition';
import { ToolSet } from './tool-set';

export class McpToolSets {
  private source: ModelTool[] | null = null;
  private all: ToolDefinition[] = [];
  private byAllowed = new Map<string, ToolSet>();

  constructor(private readonly mcp: McpManager, private readonly gate: McpGate) {}

  /** The MCP tools an agent whose definition lists `allowed` (null: no list) is offered. */
  setFor(allowed: readonly string[] | null): ToolSet {
    const defs = this.mcp.definitions();
    if (defs !== this.source) {
      this.source = defs;
      this.all = defs.map((d) => this.define(d));
      this.byAllowed.clear();
    }
    const key = allowed ? JSON.stringify(allowed) : '*';
    let set = this.byAllowed.get(key);
    if (!set) this.byAllowed.set(key, (set = new ToolSet(this.all.filter((t) => mcpToolAllowed(t.name, allowed)))));
    return set;
  }

  private define(d: ModelTool): ToolDefinition {
    const { mcp, gate } = this;
    return defineJsonTool({
      name: d.name,
      description: d.description ?? '',
      inputSchema: d.input_schema,
      agents: ['lead', 'teammate'],
      changesWorkspace: !mcp.route(d.name)?.readOnly,
      run: (input, a) => callMcpTool(mcp, gate, d.name, input, {
        name: a.name,
        signal: a.signal,
        hookApproved: a.hookApproved,
        waitingForApproval: (what) => a.setActivity({ kind: 'waiting-approval', what }),
        runningTool: (tool) => a.setActivity({ kind: 'tool', tool }),
      }),
    });
  }
}
