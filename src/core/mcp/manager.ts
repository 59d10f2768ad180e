// The MCP servers of one host (docs/mcp.md): read from `.mcp.json`, started once, lazily,
// when the first agent starts working (only in a trusted workspace, and only after the user
// saw and allowed each command line), their tools offered to every agent under
// `mcp__<server>__<tool>`, and stopped with the host. The tool array is rebuilt only when a
// server's tool list changes, so the prompt prefix the model caches stays the same. Once
// started, `.mcp.json` is watched: an edit starts added servers, stops removed ones and
// restarts changed ones; a broken edit is reported once and the running servers stay.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ModelTool } from '../model';
import { DirWatcher, type Disposable } from '../team/dir-watcher';
import { MCP_CONFIG_FILE, readMcpConfig, startDetails, type McpConfig, type McpServerConfig } from './config';
import { McpServerConnection, type McpCallResult, type McpServerState } from './server';
import { assignNames } from './tool-names';

/** What a host shows the user before a server first starts. */
export interface McpStartRequest {
  server: string;
  transport: 'stdio' | 'http' | 'sse';
  /** The command line (stdio) or URL (http, sse), after `${VAR}` expansion. */
  commandLine: string;
  /**
   * The whole entry (config.ts `startDetails`): command line, cwd and env as written, or URL
   * and headers. Hosts show it and remember an approval by it, so any change asks again.
   */
  details: string;
}

export interface McpManagerOptions {
  root: string;
  /** Workspace-defined servers start only in a trusted workspace. */
  trusted(): boolean;
  /** Asks (or remembers) whether this server may start; false leaves it declined. */
  approveStart(req: McpStartRequest, signal: AbortSignal): Promise<boolean>;
  /** Failures and config problems, each reported once; `server` names a server that failed. */
  report(level: 'warning' | 'error', message: string, server?: string): void;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
  clientVersion?: string;
  env?: NodeJS.ProcessEnv;
  /** How long edits to `.mcp.json` settle before it is read again (default 200 ms). */
  reloadDelayMs?: number;
  /**
   * Hears edits to `.mcp.json`: a session passes its team's change feed (core/team/team-files.ts),
   * so the file costs no watch of its own; without it, the manager watches `root` itself.
   */
  watchConfig?: (onChange: () => void) => Promise<Disposable>;
}

export interface McpServerInfo {
  name: string;
  transport: 'stdio' | 'http' | 'sse' | 'invalid';
  commandLine: string;
  state: McpServerState;
  /** Model-facing name and the server's own name of each tool. */
  tools: Array<{ name: string; tool: string; description: string }>;
}

interface Route {
  server: McpServerConnection;
  tool: string;
  readOnly: boolean;
}

const MAX_DESCRIPTION = 2048;

/** The server's input schema as the API accepts it: an object schema, without `$schema`. */
function inputSchema(t: Tool): ModelTool['input_schema'] {
  const { $schema: _drop, ...rest } = (t.inputSchema ?? {}) as Record<string, unknown>;
  return { ...rest, type: 'object' } as ModelTool['input_schema'];
}

function describe(t: Tool): string {
  const d = (t.description ?? t.title ?? '').trim() || `MCP tool ${t.name}.`;
  return d.length > MAX_DESCRIPTION ? `${d.slice(0, MAX_DESCRIPTION)}…` : d;
}

export class McpManager {
  private config: McpConfig | null = null;
  private servers: McpServerConnection[] = [];
  private started: Promise<void> | null = null;
  /** Every server has had its start (ready, failed or declined): nothing more to wait for. */
  private settled = false;
  private defs: ModelTool[] = [];
  private defsKey = '[]';
  private routes = new Map<string, Route>();
  private listeners = new Set<() => void>();
  private readonly controller = new AbortController();
  private disposed = false;
  private watching: Disposable | null = null;
  private reloadTimer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> = Promise.resolve();
  /** Servers an edit removed or replaced: a start approved after that does not happen. */
  private readonly retired = new WeakSet<McpServerConnection>();
  /** The problem of the file last reported, so a broken edit is reported once. */
  private fileProblem: string | undefined;
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;

  constructor(private readonly opts: McpManagerOptions) {
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.callTimeoutMs = opts.callTimeoutMs ?? 120_000;
  }

  /** The file read, or its problem (null before the first start). */
  get configState(): McpConfig | null {
    return this.config;
  }

  onChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  /** The failure last reported per server: each failure is reported once, when it happens. */
  private reported = new WeakMap<McpServerConnection, McpServerState>();

  private changed(): void {
    for (const s of this.servers) {
      if (s.state.kind === 'failed' && this.reported.get(s) !== s.state && !this.disposed) {
        this.reported.set(s, s.state);
        this.reportFailure(s);
      }
    }
    this.rebuild();
    for (const l of this.listeners) l();
  }

  /**
   * Starts the servers the first time it is called and waits, at most the start timeout,
   * for them to be ready; a server still waiting for the user's answer then joins later.
   */
  async ensureStarted(signal?: AbortSignal): Promise<void> {
    if (this.disposed) return;
    if (this.settled) return;
    this.started ??= this.startAll().finally(() => {
      this.settled = true;
    });
    let timer: NodeJS.Timeout | undefined;
    let onAbort = (): void => undefined;
    const bounded = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.startTimeoutMs + 1000);
      onAbort = resolve;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([this.started, bounded]);
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }

  private async startAll(): Promise<void> {
    const config = await readMcpConfig(this.opts.root, this.opts.env);
    if (this.disposed) return;
    this.config = config;
    this.fileProblem = config.error;
    if (config.error) this.opts.report('error', `MCP: ${config.error}. No MCP server was started.`);
    this.servers = config.servers.map((c) => this.connection(c));
    this.changed();
    this.watching = await this.watchConfig(() => this.scheduleReload()).catch(() => null);
    if (this.disposed) this.watching?.dispose();
    await Promise.all(this.servers.map((s) => this.startOne(s)));
  }

  private watchConfig(onChange: () => void): Promise<Disposable> {
    if (this.opts.watchConfig) return this.opts.watchConfig(onChange);
    const own = new DirWatcher(2000);
    return own.watchDir(this.opts.root, (f) => f === MCP_CONFIG_FILE && onChange(), [MCP_CONFIG_FILE])
      .then((sub) => ({ dispose: () => (sub.dispose(), own.dispose()) }));
  }

  private connection(c: McpServerConfig): McpServerConnection {
    return new McpServerConnection(c, { startTimeoutMs: this.startTimeoutMs, clientVersion: this.opts.clientVersion ?? '0', onChange: () => this.changed() });
  }

  private scheduleReload(): void {
    if (this.disposed) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.reloading = this.reloading.then(() => this.reload()).catch(() => undefined);
    }, this.opts.reloadDelayMs ?? 200);
  }

  /**
   * `.mcp.json` changed: servers added start (after their command line is approved), removed
   * ones stop, changed ones restart, the others run on untouched (their tools stay in the
   * same array). A file that no longer parses is reported once; everything keeps running.
   */
  async reload(): Promise<void> {
    if (this.disposed || !this.config) return;
    const config = await readMcpConfig(this.opts.root, this.opts.env);
    if (this.disposed) return;
    if (config.error) {
      if (config.error !== this.fileProblem) {
        this.opts.report('error', `MCP: ${config.error}. The MCP servers keep running as they were; fix the file to apply it.`);
      }
      this.fileProblem = config.error;
      return;
    }
    this.fileProblem = undefined;
    this.config = config;
    const old = new Map(this.servers.map((s) => [s.name, s]));
    const kept: McpServerConnection[] = [];
    const fresh: McpServerConnection[] = [];
    for (const c of config.servers) {
      const s = old.get(c.name);
      old.delete(c.name);
      if (s && JSON.stringify(s.config) === JSON.stringify(c)) {
        kept.push(s);
        continue;
      }
      if (s) this.retired.add(s);
      await s?.stop();
      const next = this.connection(c);
      kept.push(next);
      fresh.push(next);
    }
    for (const s of old.values()) this.retired.add(s);
    await Promise.all([...old.values()].map((s) => s.stop()));
    if (this.disposed) return;
    this.servers = kept;
    this.changed();
    // In the background: an agent's next call takes their tools once they are ready.
    for (const s of fresh) void this.startOne(s);
  }

  private async startOne(s: McpServerConnection): Promise<void> {
    if (s.config.transport === 'invalid' || this.disposed) return;
    if (!this.opts.trusted()) {
      s.setState({ kind: 'declined', reason: 'the workspace is not trusted' });
      return;
    }
    const held = s.config.withheld;
    if (held?.length) {
      this.opts.report('warning', `MCP server "${s.name}": ${held.map((v) => `\${${v}}`).join(', ')} in ${MCP_CONFIG_FILE} ${held.length === 1 ? 'is' : 'are'} never expanded (left empty): API keys are not handed to MCP servers.`, s.name);
    }
    s.setState({ kind: 'awaiting-approval' });
    const ok = await this.opts.approveStart(
      { server: s.name, transport: s.config.transport, commandLine: s.commandLine, details: startDetails(s.config) }, this.controller.signal,
    ).catch(() => false);
    if (this.disposed || this.retired.has(s)) return;
    if (!ok) {
      s.setState({ kind: 'declined', reason: 'not allowed to start' });
      return;
    }
    await s.start();
  }

  private reportFailure(s: McpServerConnection): void {
    if (s.state.kind !== 'failed') return;
    const tail = s.state.stderr ? `\nstderr:\n${s.state.stderr}` : '';
    this.opts.report('error', `MCP server "${s.name}" failed: ${s.state.error}. Its tools are withdrawn; restart it with "Restart MCP Server" or /mcp restart ${s.name}.${tail}`, s.name);
  }

  /** The tools of every ready server; the same array until a tool list changes. */
  definitions(): ModelTool[] {
    return this.defs;
  }

  private rebuild(): void {
    const entries: Array<{ server: McpServerConnection; tool: Tool }> = [];
    for (const s of this.servers) if (s.state.kind === 'ready') for (const tool of s.tools) entries.push({ server: s, tool });
    const names = assignNames(entries.map((e) => ({ server: e.server.name, tool: e.tool.name })));
    const defs = entries.map((e, i): ModelTool => ({ name: names[i]!, description: describe(e.tool), input_schema: inputSchema(e.tool) }));
    const key = JSON.stringify(defs);
    this.routes = new Map(entries.map((e, i) => [names[i]!, { server: e.server, tool: e.tool.name, readOnly: e.tool.annotations?.readOnlyHint === true }]));
    if (key === this.defsKey) return;
    this.defsKey = key;
    this.defs = defs;
  }

  /** The server and tool behind a model-facing name. */
  route(name: string): { server: string; tool: string; readOnly: boolean } | undefined {
    const r = this.routes.get(name);
    return r && { server: r.server.name, tool: r.tool, readOnly: r.readOnly };
  }

  async call(name: string, input: unknown, signal: AbortSignal): Promise<McpCallResult> {
    const r = this.routes.get(name);
    if (!r) return { text: `Unknown tool "${name}": its MCP server is not running.`, isError: true };
    const args = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    return r.server.call(r.tool, args, signal, this.callTimeoutMs);
  }

  list(): McpServerInfo[] {
    const byServer = new Map<McpServerConnection, McpServerInfo['tools']>();
    for (const [name, r] of this.routes) {
      const list = byServer.get(r.server) ?? [];
      list.push({ name, tool: r.tool, description: this.defs.find((d) => d.name === name)?.description ?? '' });
      byServer.set(r.server, list);
    }
    return this.servers.map((s) => ({
      name: s.name, transport: s.config.transport, commandLine: s.commandLine, state: s.state, tools: byServer.get(s) ?? [],
    }));
  }

  /**
   * Stops and starts one server again, with its entry read again from `.mcp.json` (the user
   * may have fixed it). Starts everything first if nothing was started yet.
   */
  async restart(name: string): Promise<void> {
    if (this.disposed) return;
    if (!this.started) return this.ensureStarted();
    await this.started;
    const s = this.servers.find((x) => x.name === name);
    if (!s) throw new Error(`no MCP server "${name}" in .mcp.json`);
    const fresh = (await readMcpConfig(this.opts.root, this.opts.env)).servers.find((c) => c.name === name);
    await s.stop();
    if (fresh) s.config = fresh;
    if (s.config.transport === 'invalid') {
      s.setState({ kind: 'failed', error: s.config.problem, stderr: '' });
      return;
    }
    await this.startOne(s);
  }

  /** Stops every server (the host is going away); nothing is left running. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.reloadTimer);
    this.watching?.dispose();
    this.controller.abort();
    await Promise.all(this.servers.map((s) => s.stop()));
    this.listeners.clear();
  }
}
