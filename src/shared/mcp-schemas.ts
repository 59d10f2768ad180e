// zod schema of `.mcp.json` (Claude Code's project format, docs/mcp.md), so a file users
// already keep for Claude Code works unchanged. Each server entry is validated on its own:
// one bad entry is reported by name and the others still start.
import { z } from 'zod';

const StringMap = z.record(z.string(), z.string());

export const McpStdioEntry = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
});

export const McpHttpEntry = z.looseObject({
  type: z.literal('http'),
  url: z.string().min(1, 'url must not be empty'),
  headers: StringMap.optional(),
});

/** `sse`: the older remote transport (deprecated in the MCP spec, still served by many servers). */
export const McpSseEntry = z.looseObject({
  type: z.literal('sse'),
  url: z.string().min(1, 'url must not be empty'),
  headers: StringMap.optional(),
});

export const McpServerEntry = z.union([McpHttpEntry, McpSseEntry, McpStdioEntry]);
export type McpServerEntry = z.infer<typeof McpServerEntry>;

/** The file: entries stay unknown here and are checked one by one (see core/mcp/config.ts). */
export const McpFile = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()),
});
