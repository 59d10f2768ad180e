// Starts and stops the agents of this window's team session. Agents run only in a trusted
// workspace with an API key; everything that merely reads or writes team files works
// without them, through the same session. The runner, the agent loops and the SDK load with
// the first agent (TeamSession.startAgents).
import * as vscode from 'vscode';
import type { Approver, McpHostOptions, McpServerInfo, ModelFactory, RuntimeEvent, RuntimeSettings, TeamSession } from '../core/session';
import type { ModelConfig } from '../core/session/models';
import { logRuntimeEvent } from './log';
import type { ApiKeyStore } from './secrets';
import { readBaseUrl } from './settings';

export class RestrictedModeError extends Error {
  constructor() {
    super('Agents do not run in Restricted Mode. Trust this workspace to start the team.');
  }
}

export class RuntimeHost implements vscode.Disposable {
  private readonly events = new vscode.EventEmitter<RuntimeEvent>();
  /** What the agents of this window do. */
  readonly onEvent = this.events.event;
  private readonly eventSub: { dispose(): void };
  private config: ModelConfig | undefined;
  private readonly mcpChanged = new vscode.EventEmitter<void>();
  /** An MCP server of the current runtime changed state or tools. */
  readonly onMcpChange = this.mcpChanged.event;
  private mcpSub: { dispose(): void } | undefined;

  constructor(
    private readonly session: TeamSession,
    private readonly keys: ApiKeyStore,
    private readonly approver: Approver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.eventSub = session.onEvent((e) => {
      logRuntimeEvent(log, e);
      this.events.fire(e);
    });
  }

  /** Agents run in this window. */
  get running(): boolean {
    return !!this.session.runner;
  }

  mcpServers(): McpServerInfo[] {
    return this.session.runner?.mcp.list() ?? [];
  }

  /** The session with its agents running, started on first use. Throws in Restricted Mode or without a key. */
  async ensure(): Promise<TeamSession> {
    if (this.session.runner) return this.session;
    if (!vscode.workspace.isTrusted) throw new RestrictedModeError();
    const config = await this.modelConfig();
    const { createModelClient } = await import('../core/session/models');
    const models: ModelFactory = (model, onStatus) => {
      const c = this.config ?? config;
      return createModelClient({ apiKey: c.apiKey, baseURL: c.baseURL, model, caching: true, onStatus });
    };
    const started = !this.session.runner;
    const runner = await this.session.startAgents({
      models, approver: this.approver,
      // Workspace servers start only while the workspace is trusted; rules are the runner's settings', as bash's.
      mcp: { trusted: () => vscode.workspace.isTrusted },
    });
    if (started) {
      this.mcpSub?.dispose();
      this.mcpSub = runner.mcp.onChange(() => this.mcpChanged.fire());
      this.log.info(`runtime started in ${this.session.root} (key from ${config.keySource === 'secret' ? 'secret storage' : 'ANTHROPIC_API_KEY'})`);
    }
    return this.session;
  }

  /** Resolves key and base URL now; throws a clear error without a key. */
  private async modelConfig(): Promise<ModelConfig> {
    const { resolveModelConfig } = await import('../core/session/models');
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
    if (!this.session.runner) return;
    try {
      await this.modelConfig();
      this.session.refreshModels();
    } catch (err) {
      this.log.warn(`model configuration: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  updateSettings(settings: RuntimeSettings): void {
    this.session.updateSettings(settings);
  }

  /** Stops the agents; the next ensure() starts them again. */
  async stop(): Promise<void> {
    this.mcpSub?.dispose();
    this.mcpSub = undefined;
    await this.session.stopAgents();
  }

  dispose(): void {
    void this.stop();
    this.eventSub.dispose();
    this.events.dispose();
    this.mcpChanged.dispose();
  }
}
