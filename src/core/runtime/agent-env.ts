// What an agent is given by the runner that runs it: the tools' host (ToolHost: the team,
// settings, approver, commands, spawner, worktree folders, merge queue) and the services the
// loop itself calls back into, each a small object with a narrow interface, built by the
// runner (agent-runner.ts) and replaceable by a fake in a test:
//   budget      usage and the team token budget   (usage-budget.ts)
//   compaction  summarising a conversation        (compactor.ts)
//   leases      whether this host still runs it   (the runner's leases, lease-keeper.ts)
//   keys        providers that rejected their key (key-state.ts)
//   mcp         this host's MCP servers and their tools (mcp/manager.ts, tools/mcp.ts)
//   workspaceFs its file tools in a folder        (workdirs.ts)
//   containers  container teammates               (core/container/seats.ts)
import type { AgentFs } from '../exec/agent-fs';
import type { ContainerSeats } from '../container/seats';
import type { McpManager } from '../mcp/manager';
import type { Compaction } from './compactor';
import type { KeyState } from './key-state';
import type { ToolHost } from './tools/definition';
import type { McpToolSets } from './tools/mcp';
import type { RuntimeEvent } from './types';
import type { Budget } from './usage-budget';

/** Whether this host still runs an agent (docs/file-formats.md, leases and fences). */
export interface LeaseCheck {
  /**
   * Asked before every model call, tool call, delivery and transcript write; false once
   * another host took `agent` over (it is then stopped here).
   */
  holds(agent: string): Promise<boolean>;
  /** The storage refused a write: `host` fenced `agent` (src/core/team/fences.ts); stop running it here. */
  fencedOut(agent: string, host: string): void;
}

/** What the agent needs from the runtime that owns it. */
export interface AgentEnv extends ToolHost {
  emit(e: RuntimeEvent): void;
  readonly budget: Budget;
  readonly compaction: Compaction;
  readonly leases: LeaseCheck;
  readonly keys: KeyState;
  /** This host's MCP servers (docs/mcp.md): their tools join every agent's. */
  readonly mcp: McpManager;
  readonly mcpTools: McpToolSets;
  /** Container teammates (docs/containers.md): their start, their work brought back, their stop. */
  readonly containers: Pick<ContainerSeats, 'has' | 'exec' | 'bringBack' | 'stop'>;
  /** File tools rooted at `dir` for `agent` (a new one when it moves: a task bound to a worktree); a container teammate's act on its clone there. */
  workspaceFs(agent: string, dir: string): AgentFs;
}
