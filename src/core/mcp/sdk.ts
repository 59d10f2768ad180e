// The MCP SDK, loaded on first use: a host with no `.mcp.json` never reads or parses it (the
// extension bundle keeps it in a file of its own, see esbuild.mjs).
type Sdk = typeof import('@modelcontextprotocol/sdk/client/index.js')
  & typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  & Pick<typeof import('@modelcontextprotocol/sdk/types.js'), 'McpError' | 'ErrorCode'>;

let loading: Promise<Sdk> | null = null;

export function loadMcpSdk(): Promise<Sdk> {
  loading ??= (async () => {
    const [client, http, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return { ...client, ...http, McpError: types.McpError, ErrorCode: types.ErrorCode };
  })();
  return loading;
}
