// The parts of the MCP SDK we use, as one module: loaded on first use by sdk.ts, and built
// into a bundle of its own (dist/mcp-sdk.js) for the extension, see esbuild.mjs.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
