// MCP in the CLI (docs/mcp.md): `agent-teams mcp [--tools] [--json]` lists the servers of
// `.mcp.json` (with --tools it starts each one, lists its tools and stops it again, showing
// every command line before it runs), and `/mcp [restart <name>]` in a session shows this
// host's servers with their state and tools, or restarts one.
import { ACTIONS, commandLine, type McpConfig, type McpServerInfo, probeMcpServers, readMcpConfig, stateWords } from '../core/session';
import { folderTrust, trustFlag } from './trust';
import { UsageError } from './args';
import { replScope } from './repl-action';
import type { CommandContext } from './context';
import { ReplUsageError, type SlashCommand } from './repl-host';

/** Servers, one block each: name, state, command line, tools (and stderr of a failure). */
export function mcpServersText(servers: McpServerInfo[], configError?: string): string {
  const lines: string[] = [];
  if (configError) lines.push(`.mcp.json: ${configError}`);
  if (!servers.length && !configError) lines.push('No MCP servers: add them to .mcp.json at the folder root ({"mcpServers": {...}}).');
  for (const s of servers) {
    lines.push(`${s.name} (${s.transport}): ${stateWords(s.state)}`);
    if (s.commandLine) lines.push(`  ${s.commandLine}`);
    for (const t of s.tools) lines.push(`  - ${t.name}: ${t.description.split('\n')[0]!.slice(0, 100)}`);
    if (s.state.kind === 'failed' && s.state.stderr) lines.push(...s.state.stderr.split('\n').slice(-10).map((l) => `  stderr| ${l}`));
  }
  return lines.join('\n');
}

/** The servers as configured, none started. */
function configured(config: McpConfig): McpServerInfo[] {
  return config.servers.map((c) => ({
    name: c.name, transport: c.transport, commandLine: commandLine(c), tools: [],
    state: c.transport === 'invalid' ? { kind: 'failed', error: c.problem, stderr: '' } : { kind: 'configured' },
  }));
}

export async function mcpCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const config = await readMcpConfig(ctx.root);
  if (ctx.opts.tools !== true) {
    const servers = configured(config);
    ctx.emit({ path: config.path, found: config.found, error: config.error ?? null, servers }, () => mcpServersText(servers, config.error));
    return config.error ? 1 : 0;
  }
  // Asked for explicitly: each entry is shown (stderr) as it starts, nothing runs unseen, and
  // only in a folder the user trusted (trust.ts).
  const trusted = (await folderTrust(ctx.io, ctx.root, { trust: trustFlag(ctx.opts) }))['.mcp.json'];
  const servers = await probeMcpServers({
    root: ctx.root, trusted: () => trusted,
    approveStart: async (req) => (ctx.io.stderr.write(`starting ${req.server}: ${req.details.replace(/\n/g, '\n    ')}\n`), true),
  });
  ctx.emit({ path: config.path, found: config.found, error: config.error ?? null, servers }, () => mcpServersText(servers, config.error));
  return config.error || servers.some((s) => s.state.kind === 'failed') ? 1 : 0;
}

export const MCP_SLASH_COMMAND: SlashCommand = {
  usage: '/mcp [restart <name>]', summary: "this session's MCP servers: state, command line, tools; restart one",
  async run(args, { rt, print }) {
    if (args[0] === 'restart') {
      if (args.length !== 2) throw new ReplUsageError('usage: /mcp restart <name>');
      const s = await ACTIONS.mcpRestart.run(replScope(rt), { server: args[1]! });
      print(mcpServersText(s ? [s] : []));
      return;
    }
    if (args.length) throw new ReplUsageError('usage: /mcp [restart <name>]');
    const started = rt.mcpConfigRead();
    if (started) return print(mcpServersText(rt.mcpServers(), started.error));
    const config = await readMcpConfig(rt.root);
    print(`${mcpServersText(configured(config), config.error)}${config.servers.length ? '\n(They start when the first agent works.)' : ''}`);
  },
};
