// The names the model sees for MCP tools: `mcp__<server>__<tool>` (docs/mcp.md), made to fit
// the Messages API's rule for tool names (letters, digits, `_`, `-`; at most 64). A name that
// had to be changed or cut keeps a short hash of the original, so two tools never share one.
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const PREFIX = 'mcp__';

function hash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 6);
}

/** Characters outside the API's alphabet become `_`. */
export function sanitizePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

/** `mcp__<server>__<tool>`, sanitised and cut to the API's limit. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${PREFIX}${sanitizePart(server)}__${sanitizePart(tool)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const tag = `_${hash(`${server}\u0000${tool}`)}`;
  return name.slice(0, MAX_TOOL_NAME - tag.length) + tag;
}

export function isMcpToolName(name: string): boolean {
  // A reply may carry a tool call without a name (a broken proxy): not an MCP tool, an unknown one.
  return typeof name === 'string' && name.startsWith(PREFIX);
}

/**
 * Gives every (server, tool) a distinct model name: when sanitising made two equal, the later
 * one gets a hash of its original names.
 */
export function assignNames(pairs: Array<{ server: string; tool: string }>): string[] {
  const taken = new Set<string>();
  return pairs.map(({ server, tool }) => {
    let name = mcpToolName(server, tool);
    if (taken.has(name)) {
      const tag = `_${hash(`${server}\u0000${tool}`)}`;
      name = name.slice(0, MAX_TOOL_NAME - tag.length) + tag;
    }
    taken.add(name);
    return name;
  });
}
