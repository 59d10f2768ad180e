// Starts and stops the agents of this window's team session. Agents run only in a trusted
// workspace with an API key; everything that merely reads or writes team files works
// without them, through the same session. The runner, the agent loops and the SDK load with
// the first agent (TeamSession.startAgents).
import * as vscode from 'vscode';
import { type Approver, hooksUsable, setTeamSettingsTrusted, type McpHostOptions, type McpServerInfo, type ModelFactory, providerOf, type RuntimeEvent, type RuntimeSettings, type TeamSession } from '../../core/session';
import type { ModelConfig } from '../../core/session/models';
import { logRuntimeEvent } from './log';
import type { ApiKeyStore } from './secrets';
import { askContentTrust } from '../approvals/content-trust-ask';
import { setContentTrustScope, untrustedFiles, type TrustState } from '../approvals/content-trust';
import { ignoreWorkspaceSettings, readBaseUrl, readOpenAIBaseUrl, readSettings } from './settings';

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

  /** The OpenAI key as last read from secret storage (the model factory is synchronous). */
  private openaiKey: string | undefined;

  constructor(
    private readonly session: TeamSession,
    private readonly keys: ApiKeyStore,
    private readonly approver: Approver,
    private readonly log: vscode.LogOutputChannel,
    /** The `openai:` provider's key (docs/models.md). */
    private readonly openaiKeys: ApiKeyStore,
    /** Where what the user trusted is recorded (globalState: never the workspace). */
    private readonly trustState: TrustState,
  ) {
    setContentTrustScope(session.root, trustState);
    this.eventSub = session.onEvent((e) => {
      logRuntimeEvent(log, e);
      this.events.fire(e);
    });
  }

  /** Agents run in this window. */
  get running(): boolean {
    return this.session.agentsRunning;
  }

  mcpServers(): McpServerInfo[] {
    return this.session.mcpServers();
  }

  /** Whether agents can start here: a key for the team model's provider (a `vscode:` model needs none). */
  async canStart(): Promise<boolean> {
    const provider = providerOf(this.session.settings().model);
    if (provider === 'anthropic') return this.keys.hasKey();
    return provider === 'vscode' || this.openaiKeys.hasKey();
  }

  /**
   * The session with its agents running, started on first use. Throws in Restricted Mode, or
   * without a key for the team model's provider; agents on a provider without its key fail
   * their calls with the reason (docs/models.md).
   */
  async ensure(): Promise<TeamSession> {
    if (this.session.agentsRunning) return this.session;
    if (!vscode.workspace.isTrusted) throw new RestrictedModeError();
    const { createModelFactory, resolveOpenAIConfig } = await import('../../core/session/models');
    const config = await this.modelConfig().catch((err: unknown) => {
      if (providerOf(this.session.settings().model) === 'anthropic') throw err;
      return undefined;
    });
    this.openaiKey = await this.openaiKeys.stored();
    const { createLmHost } = await import('../models/lm-host');
    const models: ModelFactory = createModelFactory({
      anthropic: () => this.config ?? this.anthropicConfig(),
      openai: () => resolveOpenAIConfig({ settingBaseUrl: readOpenAIBaseUrl(), envBaseUrl: process.env.OPENAI_BASE_URL, secretKey: this.openaiKey, envKey: process.env.OPENAI_API_KEY }),
      vscode: createLmHost(),
    });
    // A control file changed since it was trusted is asked about first (content-trust.ts).
    const untrusted = await untrustedFiles(this.session.root, this.trustState, askContentTrust);
    setTeamSettingsTrusted(this.session.root, !untrusted.has('.team/settings.json'));
    ignoreWorkspaceSettings(untrusted.has('.vscode/settings.json'));
    this.session.updateSettings(readSettings());
    const started = !this.session.agentsRunning;
    await this.session.startAgents({
      models, approver: this.approver,
      // Workspace servers start only while the workspace is trusted; rules are the runner's settings', as bash's.
      mcp: { trusted: () => vscode.workspace.isTrusted && !untrusted.has('.mcp.json') },
      hooks: { trusted: hooksUsable((f) => untrusted.has(f)) },
    });
    if (started) {
      this.mcpSub?.dispose();
      this.mcpSub = this.session.onMcpChange(() => this.mcpChanged.fire());
      this.log.info(`runtime started in ${this.session.root} (Anthropic key ${!config ? 'not set' : `from ${config.keySource === 'secret' ? 'secret storage' : 'ANTHROPIC_API_KEY'}`})`);
    }
    return this.session;
  }

  /** Resolves key and base URL now; throws a clear error without a key. */
  private async modelConfig(): Promise<ModelConfig> {
    this.config = undefined;
    this.storedKey = await this.keys.stored();
    // Loaded with the agents (the model code brings the SDKs), never at activation.
    ({ resolveModelConfig: this.resolveAnthropic } = await import('../../core/session/models'));
    this.config = this.anthropicConfig();
    return this.config;
  }

  private storedKey: string | undefined;
  private resolveAnthropic: typeof import('../../core/session/models').resolveModelConfig | undefined;

  /** Anthropic's key and URL from what was last read; throws a ModelError without a key. */
  private anthropicConfig(): ModelConfig {
    if (!this.resolveAnthropic) throw new Error('model configuration not read yet');
    return this.resolveAnthropic({ settingBaseUrl: readBaseUrl(), envBaseUrl: process.env.ANTHROPIC_BASE_URL, secretKey: this.storedKey, envKey: process.env.ANTHROPIC_API_KEY });
  }

  /** Stores (or, empty, removes) the OpenAI key; running agents use it from their next call. */
  async setOpenAIKey(key: string): Promise<void> {
    await this.openaiKeys.set(key);
    await this.refreshModelConfig();
  }

  /** Key or base URL changed: every agent's next model call uses them. */
  async refreshModelConfig(): Promise<void> {
    if (!this.session.agentsRunning) return;
    try {
      this.openaiKey = await this.openaiKeys.stored();
      await this.modelConfig().catch((err: unknown) => this.log.warn(`model configuration: ${err instanceof Error ? err.message : String(err)}`));
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
