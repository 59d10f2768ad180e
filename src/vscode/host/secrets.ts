// The Anthropic API key: VS Code SecretStorage first, else the ANTHROPIC_API_KEY env var
// (README.md: Set API Key). It is never logged or written to the workspace. Keeps the `agentTeams.hasApiKey`
// context key current for the views' welcome content.
import * as vscode from 'vscode';
import { setContext } from './walkthrough';

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly sub: vscode.Disposable;

  /** Anthropic's by default; the `openai:` provider's is `agentTeams.openaiApiKey` / OPENAI_API_KEY without a context key. */
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly secret = 'agentTeams.anthropicApiKey',
    private readonly envVar = 'ANTHROPIC_API_KEY',
    private readonly contextKey: string | null = 'agentTeams.hasApiKey',
  ) {
    this.sub = secrets.onDidChange((e) => {
      if (e.key !== this.secret) return;
      void this.refreshContext();
      this.changed.fire();
    });
  }

  /** The stored key, or undefined (the env var is read by the model config, not here). */
  async stored(): Promise<string | undefined> {
    return (await this.secrets.get(this.secret))?.trim() || undefined;
  }

  async hasKey(): Promise<boolean> {
    return !!(await this.stored()) || !!process.env[this.envVar]?.trim();
  }

  async set(key: string): Promise<void> {
    if (key.trim()) await this.secrets.store(this.secret, key.trim());
    else await this.secrets.delete(this.secret);
    await this.refreshContext();
  }

  async refreshContext(): Promise<void> {
    if (this.contextKey) await setContext(this.contextKey, await this.hasKey());
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
