// Reads `.mcp.json` at the team folder's root (docs/mcp.md): Claude Code's format, with its
// `${VAR}` / `${VAR:-default}` expansion in command, args, env, url and headers. A broken
// file or entry is a value with a clear message, never an exception: the team runs on
// without the servers it could not read, and the user is told why.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { McpFile, McpServerEntry } from '../../shared/mcp-schemas';

export const MCP_CONFIG_FILE = '.mcp.json';
/** A config larger than this is not a config. */
const MAX_CONFIG_BYTES = 1024 * 1024;

interface Base {
  /** The key in `mcpServers`, as the user wrote it. */
  name: string;
}

interface Expanded {
  /** Variables named in the entry that are never expanded (the API keys): left empty. */
  withheld?: string[];
}

export interface McpStdioConfig extends Base, Expanded {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** `env` as the file has it, `${VAR}` unexpanded: what the start question shows. */
  envAsWritten?: Record<string, string>;
  cwd: string;
}

/** Streamable HTTP, or the older HTTP+SSE transport. */
export interface McpHttpConfig extends Base, Expanded {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  /** `headers` as the file has it, `${VAR}` unexpanded. */
  headersAsWritten?: Record<string, string>;
}

/** An entry that cannot be started as written; shown as failed with `problem`. */
export interface McpInvalidConfig extends Base {
  transport: 'invalid';
  problem: string;
}

export type McpServerConfig = McpStdioConfig | McpHttpConfig | McpInvalidConfig;

export interface McpConfig {
  path: string;
  /** False when there is no `.mcp.json` (not an error). */
  found: boolean;
  /** The whole file could not be used (unreadable, not JSON, no `mcpServers` object). */
  error?: string;
  servers: McpServerConfig[];
}

/** What the user approves before a stdio server first starts: the command line as it will run. */
export function commandLine(c: McpServerConfig): string {
  if (c.transport === 'stdio') return [c.command, ...c.args].map(shellQuote).join(' ');
  if (c.transport === 'http' || c.transport === 'sse') return c.url;
  return '';
}

/**
 * The whole entry as the start question shows it (and as its approval is remembered): the
 * command line, the folder it runs in and every env variable (name and value as written);
 * for a remote server its URL and headers. Any change to it asks again (docs/mcp.md).
 */
export function startDetails(c: McpServerConfig): string {
  const map = (label: string, m: Record<string, string> | undefined) => {
    const e = Object.entries(m ?? {});
    return e.length ? [`${label}:`, ...e.map(([k, v]) => `  ${k}=${JSON.stringify(v)}`)] : [`${label}: (none)`];
  };
  if (c.transport === 'stdio') return [`command: ${commandLine(c)}`, `cwd: ${c.cwd}`, ...map('env', c.envAsWritten ?? c.env)].join('\n');
  if (c.transport === 'http' || c.transport === 'sse') return [`url: ${c.url}`, ...map('headers', c.headersAsWritten ?? c.headers)].join('\n');
  return '';
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

class MissingVar extends Error {}

/**
 * Never expanded from the host's environment, whatever `.mcp.json` says: the model vendors'
 * keys and Agent Teams' own secrets. A `${VAR}` naming one is left empty and reported, so a
 * cloned repository's server cannot be handed the user's key.
 */
const WITHHELD_VARS = new Set(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']);

export function isWithheldVar(name: string): boolean {
  return WITHHELD_VARS.has(name.toUpperCase()) || /^AGENT_?TEAMS_/i.test(name);
}

/** `${VAR}` and `${VAR:-default}`, as Claude Code expands them; `withheld` collects the keys left empty. */
export function expandVars(text: string, env: NodeJS.ProcessEnv, withheld?: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, dflt: string | undefined) => {
    if (isWithheldVar(name)) {
      withheld?.add(name);
      return '';
    }
    const v = env[name];
    // `:-` as in the shell: the default also stands in for an empty value.
    if (v !== undefined && (v !== '' || dflt === undefined)) return v;
    if (dflt !== undefined) return dflt;
    throw new MissingVar(`environment variable ${name} is not set (used as \${${name}})`);
  });
}

function expandMap(m: Record<string, string> | undefined, env: NodeJS.ProcessEnv, withheld: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, expandVars(v, env, withheld)]));
}

function issues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ');
}

/** One entry of `mcpServers`, checked and expanded. */
export function parseServerEntry(name: string, raw: unknown, root: string, env: NodeJS.ProcessEnv = process.env): McpServerConfig {
  if (!name.trim()) return { name, transport: 'invalid', problem: 'a server needs a non-empty name' };
  const parsed = McpServerEntry.safeParse(raw);
  if (!parsed.success) {
    return { name, transport: 'invalid', problem: `expected {"command", "args", "env"} or {"type": "http" or "sse", "url"}: ${issues(parsed.error)}` };
  }
  const e = parsed.data;
  const held = new Set<string>();
  const withheld = () => (held.size ? { withheld: [...held] } : {});
  try {
    if (e.type === 'http' || e.type === 'sse') {
      const url = expandVars(e.url, env, held);
      if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return { name, transport: 'invalid', problem: `url "${url}" is not an http(s) URL` };
      return { name, transport: e.type, url, headers: expandMap(e.headers, env, held), headersAsWritten: e.headers ?? {}, ...withheld() };
    }
    const command = expandVars(e.command, env, held);
    const args = (e.args ?? []).map((a) => expandVars(a, env, held));
    return { name, transport: 'stdio', cwd: root, command, args, env: expandMap(e.env, env, held), envAsWritten: e.env ?? {}, ...withheld() };
  } catch (err) {
    if (err instanceof MissingVar) return { name, transport: 'invalid', problem: err.message };
    throw err;
  }
}

/** Parses the text of a `.mcp.json`. */
export function parseMcpConfig(text: string, path: string, root: string, env: NodeJS.ProcessEnv = process.env): McpConfig {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { path, found: true, error: `${path} is not valid JSON: ${(err as Error).message}`, servers: [] };
  }
  const file = McpFile.safeParse(json);
  if (!file.success) {
    return { path, found: true, error: `${path} must be {"mcpServers": {"<name>": {...}}}: ${issues(file.error)}`, servers: [] };
  }
  const servers = Object.entries(file.data.mcpServers).map(([name, raw]) => parseServerEntry(name, raw, root, env));
  return { path, found: true, servers };
}

/** Reads `<root>/.mcp.json`; a missing file is an empty config. */
export async function readMcpConfig(root: string, env: NodeJS.ProcessEnv = process.env): Promise<McpConfig> {
  const path = join(root, MCP_CONFIG_FILE);
  let text: string;
  try {
    const fh = await open(path, 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile()) return { path, found: true, error: `${path} is not a file`, servers: [] };
      if (st.size > MAX_CONFIG_BYTES) return { path, found: true, error: `${path} is ${st.size} bytes; the limit is ${MAX_CONFIG_BYTES}`, servers: [] };
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { path, found: false, servers: [] };
    return { path, found: true, error: `${path} could not be read: ${(err as Error).message}`, servers: [] };
  }
  return parseMcpConfig(text, path, root, env);
}
