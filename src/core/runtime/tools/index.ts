// The registry of built-in agent tools. Adding a tool = one `defineTool` in its family's
// file, listed in that file's array; the lead's and teammates' lists derive from
// `agents`, in the order below (it is part of the cached prompt prefix, so it is stable).
// Narrower sets (an agent definition's tool list) filter `toolsFor(kind)`; tools that come
// and go at run time (MCP's `mcp__server__tool`) are `defineJsonTool`s appended to it.
import type { AgentKind, ToolDefinition } from './definition';
import { fileTools } from './files';
import { mergeTools } from './merge';
import { protocolTools } from './protocols';
import { searchTools } from './search';
import { shellTools } from './shell';
import { taskTools } from './tasks';
import { teamTools } from './team';
import { worktreeTools } from './worktree-tools';

export { defineJsonTool, defineTool, fail, ok } from './definition';
export type { AgentHandle, AgentKind, ToolDefinition, ToolHost, ToolResult } from './definition';
export { ToolSet } from './tool-set';

export const BUILTIN_TOOLS: readonly ToolDefinition[] = [...shellTools, ...searchTools, ...fileTools, ...teamTools, ...protocolTools, ...taskTools, ...worktreeTools, ...mergeTools];

/**
 * The built-in tools an agent of this kind is offered, in the order the model sees them. An
 * opt-in tool (teammates' task_create) is left out unless `named` (its definition's `tools`) lists it.
 */
export function toolsFor(kind: AgentKind, named?: readonly string[] | null): ToolDefinition[] {
  return BUILTIN_TOOLS.filter((t) => t.agents.includes(kind) && (!t.optIn?.includes(kind) || !!named?.includes(t.name)));
}
