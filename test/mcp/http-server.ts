// Tiny remote MCP servers built with the SDK itself, in the test process: streamable HTTP (one
// stateless server per request, as the SDK's own examples do) and the older HTTP+SSE
// transport (an event stream per client, its messages POSTed back). `auth` is checked against
// the Authorization header of every request, so `headers` in .mcp.json are seen to arrive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface HttpMcp {
  url: string;
  calls: string[];
  close(): Promise<void>;
}

function shoutServer(calls: string[]): McpServer {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' });
  server.registerTool('shout', { description: 'Upper-cases the text.', inputSchema: { text: z.string() } }, async ({ text }) => {
    calls.push(text);
    return { content: [{ type: 'text', text: text.toUpperCase() }] };
  });
  return server;
}

async function listen(auth: string | undefined, path: string, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ http: Server; url: string }> {
  const http: Server = createServer(async (req, res) => {
    if (auth && req.headers.authorization !== auth) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    await handle(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return { http, url: `http://127.0.0.1:${port}${path}` };
}

function closer(http: Server): () => Promise<void> {
  return () => new Promise((r) => {
    http.closeAllConnections();
    http.close(() => r());
  });
}

export async function startHttpMcp(auth?: string): Promise<HttpMcp> {
  const calls: string[] = [];
  const { http, url } = await listen(auth, '/mcp', async (req, res) => {
    const server = shoutServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  return { url, calls, close: closer(http) };
}

/** An HTTP+SSE server: GET /sse opens a client's stream, POST /messages?sessionId= carries its requests. */
export async function startSseMcp(auth?: string): Promise<HttpMcp> {
  const calls: string[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const { http, url } = await listen(auth, '/sse', async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && u.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      await shoutServer(calls).connect(transport);
      return;
    }
    const transport = req.method === 'POST' && u.pathname === '/messages' ? sessions.get(u.searchParams.get('sessionId') ?? '') : undefined;
    if (!transport) {
      res.writeHead(404).end('no such session');
      return;
    }
    await transport.handlePostMessage(req, res);
  });
  return { url, calls, close: closer(http) };
}
