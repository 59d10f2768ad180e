// One MCP server as this host runs it: start (bounded by a timeout), its tool list (kept up
// to date on `tools/list_changed`), calls (bounded, abortable), and what happens when it
// fails: it is stopped, its state says why with the tail of its stderr, and its tools are
// gone until it is restarted. Nothing here throws at a caller; failures are states.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { commandLine, type McpServerConfig } from './config';
import { resultText } from './results';
import { loadMcpSdk } from './sdk';
import type { McpServerState } from './state';
import { ProcessGroupStdioTransport } from './stdio-transport';

export type { McpServerState } from './state';

export interface McpCallResult {
  text: string;
  isError: boolean;
}

export interface McpServerOptions {
  startTimeoutMs: number;
  /** Called after every change of state or tool list. */
  onChange(): void;
  clientVersion: string;
}

const PAGE_LIMIT = 50;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class McpServerConnection {
  state: McpServerState = { kind: 'configured' };
  tools: Tool[] = [];
  private client: Client | null = null;
  private transport: Transport | null = null;
  /** Bumped on every start and stop: late events of an earlier run are ignored. */
  private run = 0;
  private starting: Promise<void> | null = null;
  /** How the process ended, when it ended during the start. */
  private exitNote: string | null = null;

  constructor(public config: McpServerConfig, private readonly opts: McpServerOptions) {
    if (config.transport === 'invalid') this.state = { kind: 'failed', error: config.problem, stderr: '' };
  }

  get name(): string {
    return this.config.name;
  }

  /** What the user sees and approves: the command line, or the URL. */
  get commandLine(): string {
    return commandLine(this.config);
  }

  private set(state: McpServerState): void {
    this.state = state;
    this.opts.onChange();
  }

  setState(state: McpServerState): void {
    this.set(state);
  }

  private stderrTail(): string {
    return this.transport instanceof ProcessGroupStdioTransport ? this.transport.stderrTail() : '';
  }

  /** Starts the server and lists its tools; settles (ready or failed) within the start timeout. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const c = this.config;
    if (c.transport === 'invalid') return this.set({ kind: 'failed', error: c.problem, stderr: '' });
    const run = ++this.run;
    this.exitNote = null;
    this.set({ kind: 'starting' });
    const sdk = await loadMcpSdk();
    // The headers go with every request: the SSE transport's event stream and its POSTs too.
    const transport: Transport = c.transport === 'stdio'
      ? new ProcessGroupStdioTransport({ command: c.command, args: c.args, env: c.env, cwd: c.cwd })
      : c.transport === 'sse'
        ? new sdk.SSEClientTransport(new URL(c.url), { requestInit: { headers: c.headers } })
        : new sdk.StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
    const client = new sdk.Client({ name: 'agent-teams', version: this.opts.clientVersion }, {
      capabilities: {},
      listChanged: { tools: { autoRefresh: false, debounceMs: 100, onChanged: () => void this.refreshTools(run) } },
    });
    this.transport = transport;
    this.client = client;
    client.onclose = () => this.closed(run);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${Math.round(this.opts.startTimeoutMs / 1000)} s`)), this.opts.startTimeoutMs);
    });
    try {
      await Promise.race([(async () => {
        await client.connect(transport, { timeout: this.opts.startTimeoutMs });
        this.tools = await this.listAll(client);
      })(), timeout]);
      // Stopped (host shutdown, restart) while it started: nothing of this run may live on.
      if (run !== this.run) {
        await transport.close().catch(() => undefined);
        return;
      }
      this.set({ kind: 'ready', tools: this.tools.length });
    } catch (err) {
      // "Connection closed" says less than how the process ended.
      const why = this.exitNote && /connection closed/i.test(message(err)) ? this.exitNote : message(err);
      if (run === this.run) await this.fail(`${this.commandLine}: ${why}`);
      else await transport.close().catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  private async listAll(client: Client): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const r = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.opts.startTimeoutMs });
      out.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  private async refreshTools(run: number): Promise<void> {
    const client = this.client;
    if (run !== this.run || !client || this.state.kind !== 'ready') return;
    try {
      const tools = await this.listAll(client);
      if (run !== this.run) return;
      this.tools = tools;
      this.set({ kind: 'ready', tools: tools.length });
    } catch (err) {
      if (run === this.run) await this.fail(`listing its tools after a change failed: ${message(err)}`);
    }
  }

  /** The connection closed without our asking: the server exited or the stream ended. */
  private closed(run: number): void {
    if (run !== this.run) return;
    const exit = this.transport instanceof ProcessGroupStdioTransport ? this.transport.exit : null;
    const how = `the server ${exit ? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`) : 'closed the connection'}`;
    // While starting, the start itself reports (with this as the reason).
    if (this.state.kind === 'starting') this.exitNote = how;
    else void this.fail(how);
  }

  /** Stops what is left of it and records why; its tools are withdrawn. */
  private async fail(error: string): Promise<void> {
    const stderr = this.stderrTail();
    const transport = this.transport;
    this.run++;
    this.client = null;
    this.transport = null;
    this.tools = [];
    this.set({ kind: 'failed', error, stderr });
    await transport?.close().catch(() => undefined);
  }

  /** Calls one of its tools; a failure of the server itself also fails the server. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<McpCallResult> {
    const client = this.client;
    if (!client || this.state.kind !== 'ready') return { text: `MCP server "${this.name}" is not running.`, isError: true };
    const { McpError, ErrorCode } = await loadMcpSdk();
    const run = this.run;
    // A signal of this call's own: the SDK's listener on it must not pile up on the agent's.
    const own = new AbortController();
    const forward = (): void => own.abort();
    signal.addEventListener('abort', forward, { once: true });
    try {
      const r = (await client.callTool({ name: tool, arguments: args }, undefined, {
        // Asking for progress (onprogress) is what lets a working server's progress reset the timeout.
        signal: own.signal, timeout: timeoutMs, resetTimeoutOnProgress: true, onprogress: () => undefined,
      })) as CallToolResult;
      return { text: resultText(r), isError: r.isError === true };
    } catch (err) {
      if (signal.aborted) return { text: 'Stopped by the user.', isError: true };
      const code = err instanceof McpError ? err.code : undefined;
      // The server answered with an error (bad arguments, unknown tool): only this call failed.
      if (code !== undefined && code !== ErrorCode.RequestTimeout && code !== ErrorCode.ConnectionClosed) {
        return { text: `MCP error from "${this.name}": ${message(err)}`, isError: true };
      }
      const why = code === ErrorCode.RequestTimeout
        ? `did not answer ${tool} within ${Math.round(timeoutMs / 1000)} s`
        : `failed during ${tool}: ${message(err)}`;
      if (run === this.run) await this.fail(why);
      const s = this.state as McpServerState;
      const detail = s.kind === 'failed' ? `${s.error}${s.stderr ? `\nIts stderr ended with:\n${s.stderr}` : ''}` : why;
      return { text: `MCP server "${this.name}" ${why}. Its tools are withdrawn until the user restarts it.\n${detail}`, isError: true };
    } finally {
      signal.removeEventListener('abort', forward);
    }
  }

  /** Stops the server (host shutdown, restart); its state becomes `stopped`. */
  async stop(): Promise<void> {
    this.run++;
    const transport = this.transport;
    this.client = null;
    this.transport = null;
    this.tools = [];
    await transport?.close().catch(() => undefined);
    this.set({ kind: 'stopped' });
  }
}
