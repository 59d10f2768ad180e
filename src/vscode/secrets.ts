// The Anthropic API key: VS Code SecretStorage first, else the ANTHROPIC_API_KEY env var
// (README.md: Set API Key). It is never logged or written to the workspace. Keeps the `agentTeams.hasApiKey`
// context key current for the views' welcome content.
import * as vscode from 'vscode';

const SECRET = 'agentTeams.anthropicApiKey';

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.sub = secrets.onDidChange((e) => {
      if (e.key !== SECRET) return;
      void this.refreshContext();
      this.changed.fire();
    });
  }

  /** The stored key, or undefined (the env var is read by the model config, not here). */
  async stored(): Promise<string | undefined> {
    return (await this.secrets.get(SECRET))?.trim() || undefined;
  }

  async hasKey(): Promise<boolean> {
    return !!(await this.stored()) || !!process.env.ANTHROPIC_API_KEY?.trim();
  }

  async set(key: string): Promise<void> {
    if (key.trim()) await this.secrets.store(SECRET, key.trim());
    else await this.secrets.delete(SECRET);
    await this.refreshContext();
  }

  async refreshContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'agentTeams.hasApiKey', await this.hasKey());
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
