// mcp.call_ms (docs/mcp.md): a tool call through a stdio MCP server and back, the way an
// agent makes it (McpManager.call: route, own process-group transport, SDK client, result
// to text), against @modelcontextprotocol/server-everything's `echo`. Same run, same server:
// the SDK's own client and stdio transport, called directly, as the floor.
// Tunables (env): BENCH_MCP_CALLS (500).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpManager } from '../src/core/mcp/manager';
import { bench, latency, note } from './lib/report';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 500);
const WARMUP = 20;
const SERVER = resolve(__dirname, '..', '..', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

async function timed(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const out: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await call(i);
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-bench-mcp-'));
  await writeFile(join(root, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [SERVER, 'stdio'] } } }));
  const mcp = new McpManager({
    root, trusted: () => true, approveStart: async () => true,
    report: (_l, m) => note(`report: ${m}`),
  });
  const signal = new AbortController().signal;
  try {
    await mcp.ensureStarted();
    const ours = await timed(async (i) => {
      const r = await mcp.call('mcp__everything__echo', { message: `m${i}` }, signal);
      if (r.isError || r.text !== `Echo: m${i}`) throw new Error(`unexpected result: ${r.text}`);
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'], stderr: 'ignore' }));
    const sdk = await timed((i) => client.callTool({ name: 'echo', arguments: { message: `m${i}` } }));
    await client.close();
    const o = latency(ours);
    const s = latency(sdk);
    note(`${CALLS} echo calls each, after ${WARMUP} warm-up calls`);
    bench('mcp.call_ms', 'ours', { p50_ms: o.p50_ms, p99_ms: o.p99_ms, max_ms: o.max_ms, calls: CALLS, sdk_p50_ms: s.p50_ms, sdk_p99_ms: s.p99_ms });
  } finally {
    await mcp.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
