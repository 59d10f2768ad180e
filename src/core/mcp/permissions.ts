// Permission rules for MCP tools (docs/mcp.md), in Claude Code's names: `mcp__<server>__<tool>`
// for one tool, `mcp__<server>` (or `mcp__<server>__*`) for all of a server's. Deny beats ask
// beats allow; a tool no rule names is `ask`: a server's tools can do anything it can.
export type McpPermission = 'allow' | 'ask' | 'deny';

export interface PermissionRules {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
}

/** `ruleNames`: the tool's own name first, then its server's (see tool-names.ts). */
export function mcpPermission(ruleNames: readonly string[], rules: PermissionRules | undefined): McpPermission {
  const matches = (list: readonly string[] | undefined) =>
    !!list?.some((r) => {
      const rule = r.trim().replace(/__\*$/, '');
      return ruleNames.includes(rule);
    });
  if (matches(rules?.deny)) return 'deny';
  if (matches(rules?.ask)) return 'ask';
  if (matches(rules?.allow)) return 'allow';
  return 'ask';
}
