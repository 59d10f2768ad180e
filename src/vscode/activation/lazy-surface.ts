// Stand-ins the first bundle puts on screen at activation, before the engine is in: tree data
// providers, a webview view provider and a panel serializer that forward to the engine's
// once it has loaded (docs/activation.md). Until then a view asks and waits, with VS Code's
// progress bar, and a command waits for the engine before it runs.
import * as vscode from 'vscode';

/** A tree provider that shows the engine's provider's rows once `attach` gives it one. */
export class LazyTree implements vscode.TreeDataProvider<unknown>, vscode.Disposable {
  private real: vscode.TreeDataProvider<unknown> | undefined;
  private readonly changed = new vscode.EventEmitter<unknown>();
  readonly onDidChangeTreeData = this.changed.event;
  private sub: vscode.Disposable | undefined;

  constructor(private readonly engine: Promise<unknown>) {}

  attach(real: vscode.TreeDataProvider<unknown>): void {
    this.real = real;
    this.sub = real.onDidChangeTreeData?.((e) => this.changed.fire(e));
  }

  getTreeItem(element: unknown): vscode.TreeItem | Thenable<vscode.TreeItem> {
    // Elements only come from getChildren, which waited for the engine.
    return this.real!.getTreeItem(element);
  }

  async getChildren(element?: unknown): Promise<unknown[]> {
    await this.engine.catch(() => undefined);
    return (await this.real?.getChildren(element)) ?? [];
  }

  getParent(element: unknown): vscode.ProviderResult<unknown> {
    return this.real?.getParent?.(element);
  }

  dispose(): void {
    this.sub?.dispose();
    this.changed.dispose();
  }
}

/** Registers every contributed command; each runs the engine's handler, waiting for it first. */
export function registerCommandProxies(
  ids: readonly string[],
  handler: (id: string) => Promise<((...args: unknown[]) => unknown) | undefined>,
): vscode.Disposable[] {
  return ids.map((id) => vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    const run = await handler(id);
    return run?.(...args);
  }));
}

/** The inbox view, resolved by the engine's provider. */
export function lazyWebviewView(engine: Promise<vscode.WebviewViewProvider | undefined>): vscode.WebviewViewProvider {
  return {
    async resolveWebviewView(view, context, token) {
      await (await engine)?.resolveWebviewView(view, context, token);
    },
  };
}

/** Transcript panels restored after a reload, by the engine's serializer. */
export function lazySerializer(engine: Promise<vscode.WebviewPanelSerializer | undefined>): vscode.WebviewPanelSerializer {
  return {
    async deserializeWebviewPanel(panel, state) {
      const real = await engine;
      if (real) await real.deserializeWebviewPanel(panel, state);
      else panel.dispose();
    },
  };
}

type ModelProvider = vscode.LanguageModelChatProvider & { readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void> };

/** The `agent-teams` language models (docs/models.md), answered by the engine's provider once it is in. */
export function lazyModelProvider(engine: Promise<ModelProvider | undefined>): ModelProvider & vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  let sub: vscode.Disposable | undefined;
  // VS Code resolves a vendor's models only when asked or told they changed: once the engine
  // (and with it the keys) is in, say so, or the Chat view's picker never lists them.
  void engine.then((real) => {
    sub = real?.onDidChangeLanguageModelChatInformation?.(() => changed.fire());
    if (real) changed.fire();
  });
  return {
    onDidChangeLanguageModelChatInformation: changed.event,
    async provideLanguageModelChatInformation(options, token) {
      return (await (await engine)?.provideLanguageModelChatInformation(options, token)) ?? [];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      const real = await engine;
      if (!real) throw new Error('Agent Teams could not start its models.');
      return real.provideLanguageModelChatResponse(model, messages, options, progress, token);
    },
    async provideTokenCount(model, text, token) {
      return (await engine)?.provideTokenCount(model, text, token) ?? 0;
    },
    dispose() {
      sub?.dispose();
      changed.dispose();
    },
  };
}
