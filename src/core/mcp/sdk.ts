// The MCP SDK, loaded on first use: a host with no `.mcp.json` never reads or parses it (the
// extension keeps it in a bundle of its own, see esbuild.mjs).
type Sdk = typeof import('./sdk-entry.js');

let loading: Promise<Sdk> | null = null;

export function loadMcpSdk(): Promise<Sdk> {
  loading ??= import('./sdk-entry.js');
  return loading;
}
