// An MCP tool result as the text the model gets back (docs/mcp.md): text content as is;
// images, audio and binary resources as a short note (their bytes would only cost tokens);
// embedded text resources with their URI; structured content when there is nothing else.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Content = CallToolResult['content'][number];

function size(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

function one(c: Content): string {
  switch (c.type) {
    case 'text':
      return c.text;
    case 'image':
      return `[image ${c.mimeType}, ${size(c.data)}: not shown to you]`;
    case 'audio':
      return `[audio ${c.mimeType}, ${size(c.data)}: not shown to you]`;
    case 'resource': {
      const r = c.resource;
      if ('text' in r && typeof r.text === 'string') return `[resource ${r.uri}]\n${r.text}`;
      return `[binary resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}: not shown to you]`;
    }
    case 'resource_link':
      return `[resource link ${c.uri}${c.name ? ` "${c.name}"` : ''}${c.mimeType ? ` (${c.mimeType})` : ''}]`;
    default:
      return `[${(c as { type?: string }).type ?? 'unknown'} content: not shown to you]`;
  }
}

export function resultText(r: CallToolResult): string {
  const parts = (Array.isArray(r.content) ? r.content : []).map(one);
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent, null, 2));
  const text = parts.join('\n');
  return text || (r.isError ? 'The tool failed without saying why.' : '(no output)');
}
