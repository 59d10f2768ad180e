// MCP tools as an agent uses them (docs/mcp.md): which it is offered, the array added to its
// own tools, and a call that passes the permission rules (src/core/permissions; asking the user through the same approval UI as
// bash when the rule is `ask`) before it reaches the server. Errors come back as tool
// errors; nothing throws into the agent loop.
import type { ModelTool } from '../model';
import type { McpManager } from './manager';
import { decideToolName } from '../permissions/decide';
import type { RuleSource } from '../permissions/rules';
import type { McpCallResult } from './server';
import { sanitizePart } from './tool-names';

/** What an MCP call needs of the agent making it. */
export interface McpCaller {
  readonly name: string;
  readonly signal: AbortSignal;
  /** Shown while the user is asked. */
  waitingForApproval(what: string): void;
  /** Shown again once the answer is in and the tool runs. */
  runningTool(tool: string): void;
  /** A PreToolUse hook allowed this call (docs/hooks.md): the default ask is skipped; rules still apply. */
  readonly hookApproved?: boolean;
}

export interface McpGate {
  /** agentTeams.permissions (or the CLI's): rules naming `mcp__<server>` or `mcp__<server>__<tool>`. */
  rules(): RuleSource | undefined;
  /** The user's answer for one call whose rule is `ask`; `suggestions` are the rules "Always allow" may write. */
  ask(agent: string, tool: string, input: unknown, signal: AbortSignal, suggestions: string[]): Promise<'allow' | 'deny'>;
}

/**
 * Whether an agent whose definition lists `allowed` tools (null: no list) may use MCP tool
 * `name`: listed by its own name or by its server's (`mcp__<server>`), as in Claude Code.
 */
export function mcpToolAllowed(name: string, allowed: readonly string[] | null | undefined): boolean {
  if (!allowed) return true;
  return allowed.some((entry) => {
    const a = entry.replace(/__\*$/, '');
    const wholeServer = a.startsWith('mcp__') && !a.slice(5).includes('__');
    return a === name || (wholeServer && name.startsWith(`${a}__`));
  });
}

/**
 * The agent's tools followed by its MCP tools: the same array for the same two inputs, so a
 * request's tools (and the prompt cache behind them) change only when an MCP list does.
 */
export function withMcpTools(own: ModelTool[], mcp: ModelTool[]): ModelTool[] {
  if (!mcp.length) return own;
  let inner = cache.get(own);
  if (!inner) cache.set(own, (inner = new WeakMap()));
  let both = inner.get(mcp);
  if (!both) inner.set(mcp, (both = [...own, ...mcp]));
  return both;
}

const cache = new WeakMap<ModelTool[], WeakMap<ModelTool[], ModelTool[]>>();

function summary(input: unknown): string {
  const s = JSON.stringify(input ?? {});
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

/**
 * What "Always allow" offers for MCP tool `name` of `server`: the tool's own rule, then its
 * server's (`mcp__<server>`) when that rule would match the name (docs/permissions.md).
 */
export function suggestMcpRules(name: string, server: string): string[] {
  const serverRule = `mcp__${sanitizePart(server)}`;
  return decideToolName({ allow: [serverRule] }, name)?.verdict === 'allow' ? [name, serverRule] : [name];
}

export async function callMcpTool(mcp: McpManager, gate: McpGate, name: string, input: unknown, agent: McpCaller): Promise<McpCallResult> {
  const route = mcp.route(name);
  if (!route) return { text: `Unknown tool "${name}": its MCP server is not running (ask the user to restart it).`, isError: true };
  // A server's tools can do anything the server can: what no rule decides is asked about.
  const decision = decideToolName(gate.rules(), name);
  const permission = decision?.verdict ?? 'ask';
  if (permission === 'deny') return { text: `${name} is denied: ${decision?.reason ?? 'by the permission rules'}.`, isError: true };
  if (permission === 'ask' && !(agent.hookApproved && !decision)) {
    agent.waitingForApproval(`${name} ${summary(input)}`);
    const answer = await gate.ask(agent.name, name, input, agent.signal, suggestMcpRules(name, route.server)).catch(() => 'deny' as const);
    if (agent.signal.aborted) return { text: 'Stopped by the user.', isError: true };
    if (answer !== 'allow') return { text: `The user denied this call of ${name}.`, isError: true };
    agent.runningTool(name);
  }
  return mcp.call(name, input, agent.signal);
}
