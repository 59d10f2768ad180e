// A tiny streamable-HTTP MCP server built with the SDK itself, in the test process: one
// stateless server per request, as the SDK's own examples do. `auth` is checked against the
// Authorization header so `headers` in .mcp.json are seen to arrive.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface HttpMcp {
  url: string;
  calls: string[];
  close(): Promise<void>;
}

export async function startHttpMcp(auth?: string): Promise<HttpMcp> {
  const calls: string[] = [];
  const http: Server = createServer(async (req, res) => {
    if (auth && req.headers.authorization !== auth) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const server = new McpServer({ name: 'http-test', version: '1.0.0' });
    server.registerTool('shout', { description: 'Upper-cases the text.', inputSchema: { text: z.string() } }, async ({ text }) => {
      calls.push(text);
      return { content: [{ type: 'text', text: text.toUpperCase() }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () => new Promise((r) => {
      http.closeAllConnections();
      http.close(() => r());
    }),
  };
}
