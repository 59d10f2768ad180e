// Starts and owns the agent runtime for this window. The runtime runs agents, so it starts
// only in a trusted workspace with an API key; everything that merely reads or writes team
// files works without it (see commands.ts). `createRuntime` is the one place that names the
// implementation.
import * as vscode from 'vscode';
import type { McpHostOptions } from '../core/mcp/host';
import type { McpServerInfo } from '../core/mcp/manager';
import type { JobInfo } from '../core/exec/jobs';
import type { ModelConfig } from '../core/model';
import type { Activity, Approver, ModelFactory, RuntimeEvent, RuntimeSettings, TeamRuntime } from '../core/runtime/types';
import { logRuntimeEvent } from './log';
import type { ApiKeyStore } from './secrets';
import { readBaseUrl, readPermissionRules, readSettings } from './settings';

export interface RuntimeStartOptions {
  root: string;
  settings: RuntimeSettings;
  models: ModelFactory;
  approver: Approver;
  mcp: McpHostOptions;
}

/**
 * The one place that names the runtime implementation. Loaded on first use (esbuild keeps a
 * dynamically imported module unevaluated until then), so the Anthropic SDK and the agent
 * loops cost nothing at activation.
 */
async function createRuntime(opts: RuntimeStartOptions): Promise<TeamRuntime> {
  const { Runtime } = await import('../core/runtime/runtime');
  return Runtime.start(opts);
}

export class RestrictedModeError extends Error {
  constructor() {
    super('Agents do not run in Restricted Mode. Trust this workspace to start the team.');
  }
}

export class RuntimeHost implements vscode.Disposable {
  private runtime: TeamRuntime | undefined;
  private starting: Promise<TeamRuntime> | undefined;
  private readonly events = new vscode.EventEmitter<RuntimeEvent>();
  /** Runtime events of whichever runtime is current. */
  readonly onEvent = this.events.event;
  private eventSub: { dispose(): void } | undefined;
  private config: ModelConfig | undefined;
  private readonly mcpChanged = new vscode.EventEmitter<void>();
  /** An MCP server of the current runtime changed state or tools. */
  readonly onMcpChange = this.mcpChanged.event;
  private mcpSub: { dispose(): void } | undefined;

  constructor(
    private readonly root: string,
    private readonly keys: ApiKeyStore,
    private readonly approver: Approver,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get current(): TeamRuntime | undefined {
    return this.runtime;
  }

  jobs(agent: string): JobInfo[] {
    return this.runtime?.jobs.list(agent) ?? [];
  }

  activity(agent: string): Activity | undefined {
    return this.runtime?.activity(agent);
  }

  mcpServers(): McpServerInfo[] {
    return this.runtime?.mcp.list() ?? [];
  }

  /** The running runtime, started on first use. Throws in Restricted Mode or without a key. */
  ensure(): Promise<TeamRuntime> {
    if (this.runtime) return Promise.resolve(this.runtime);
    if (!vscode.workspace.isTrusted) return Promise.reject(new RestrictedModeError());
    this.starting ??= this.start().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  /** Resolves key and base URL now; throws a clear error without a key. */
  private async modelConfig(): Promise<ModelConfig> {
    const { resolveModelConfig } = await import('../core/model');
    this.config = resolveModelConfig({
      settingBaseUrl: readBaseUrl(),
      envBaseUrl: process.env.ANTHROPIC_BASE_URL,
      secretKey: await this.keys.stored(),
      envKey: process.env.ANTHROPIC_API_KEY,
    });
    return this.config;
  }

  /** Key or base URL changed: every agent's next model call uses them. */
  async refreshModelConfig(): Promise<void> {
    if (!this.runtime) return;
    try {
      await this.modelConfig();
      this.runtime.refreshModels();
    } catch (err) {
      this.log.warn(`model configuration: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async start(): Promise<TeamRuntime> {
    const config = await this.modelConfig();
    const { createModelClient } = await import('../core/model');
    const models: ModelFactory = (model, onStatus) => {
      const c = this.config ?? config;
      return createModelClient({ apiKey: c.apiKey, baseURL: c.baseURL, model, caching: true, onStatus });
    };
    const runtime = await createRuntime({
      root: this.root, settings: readSettings(), models, approver: this.approver,
      // Workspace servers start only while the workspace is trusted; rules from the same settings as bash.
      mcp: { trusted: () => vscode.workspace.isTrusted, rules: readPermissionRules },
    });
    this.mcpSub = runtime.mcp.onChange(() => this.mcpChanged.fire());
    this.eventSub = runtime.onEvent((e) => {
      logRuntimeEvent(this.log, e);
      this.events.fire(e);
    });
    this.runtime = runtime;
    this.log.info(`runtime started in ${this.root} (key from ${config.keySource === 'secret' ? 'secret storage' : 'ANTHROPIC_API_KEY'})`);
    return runtime;
  }

  updateSettings(settings: RuntimeSettings): void {
    this.runtime?.updateSettings(settings);
  }

  /** Stops the runtime; the next ensure() starts a new one. */
  async stop(): Promise<void> {
    const old = this.runtime;
    this.runtime = undefined;
    this.eventSub?.dispose();
    this.eventSub = undefined;
    this.mcpSub?.dispose();
    this.mcpSub = undefined;
    await old?.dispose();
  }

  dispose(): void {
    void this.stop();
    this.events.dispose();
    this.mcpChanged.dispose();
  }
}
