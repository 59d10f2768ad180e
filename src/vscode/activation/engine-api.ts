// What the lean first bundle (extension.ts, dist/extension.js) and the engine (surface.ts,
// dist/engine.js, everything else) say to each other, as types only, so neither bundle holds
// a module of the other (docs/activation.md).
import type * as vscode from 'vscode';

/** The tree views, by name (extension.ts `TREE_VIEWS` holds their ids and options). */
export type TreeName = 'team' | 'tasks' | 'changes';

/** A command handler as vscode.commands.registerCommand takes it. */
export type CommandHandler = (...args: unknown[]) => unknown;

/** What the first bundle made at activation, handed to the engine. */
export interface Shell {
  readonly context: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  /** The folder the team lives in (the first `file:` workspace folder); undefined without one. */
  readonly root: string | undefined;
  /** The three tree views, already on screen; their rows come from the engine's providers. */
  readonly views?: Readonly<Record<TreeName, vscode.TreeView<unknown>>>;
}

/** What the engine gives back: the providers behind the views and a handler per command. */
export interface Engine {
  /** Every contributed command's handler (the first bundle registered them all). */
  readonly commands: ReadonlyMap<string, CommandHandler>;
  readonly trees?: Readonly<Record<TreeName, vscode.TreeDataProvider<unknown>>>;
  readonly inbox?: vscode.WebviewViewProvider;
  readonly transcripts?: vscode.WebviewPanelSerializer;
  /** The `agent-teams` language model provider behind the first bundle's stand-in (model-provider.ts). */
  readonly models?: vscode.LanguageModelChatProvider & { readonly onDidChangeLanguageModelChatInformation: vscode.Event<void> };
  /** The @team chat participant's handler (chat-participant.ts). */
  readonly chat?: ChatHandler;
  /** For tests: what ExtensionApi shows once the engine is in. */
  readonly api: Partial<Pick<ExtensionApi, 'teamTree' | 'taskTree' | 'transcripts' | 'changes' | 'chat'>>;
  /** Waits for the agents to stop and closes the team. */
  deactivate(): Promise<void>;
}

/** The engine module (dist/engine.js), required by the first bundle on first need. */
export interface EngineModule {
  startEngine(shell: Shell): Engine;
}

// Type-only imports: these modules are the engine's, never loaded by the first bundle.
type TeamTreeProvider = import('../views/team/team-tree').TeamTreeProvider;
type TaskTreeProvider = import('../views/task-tree').TaskTreeProvider;
type TranscriptPanels = import('../webviews/transcript-panel').TranscriptPanels;
type ChangesProvider = import('../views/changes-view').ChangesProvider;
type ChatHandler = ReturnType<typeof import('../models/chat-participant').chatHandler>;

export interface ExtensionApi {
  /** For tests: the workspace root the team lives in. */
  readonly root: string | undefined;
  /** Resolves once the engine is in and the views can show rows (rejects if it failed to load). */
  readonly ready: Promise<void>;
  /** The engine's providers (undefined until `ready`). */
  readonly teamTree: TeamTreeProvider | undefined;
  readonly taskTree: TaskTreeProvider | undefined;
  /** For tests: open transcript panels and the Changes view. */
  readonly transcripts?: TranscriptPanels;
  readonly changes?: ChangesProvider;
  /** For tests: the @team participant's handler, to call with a recording response stream. */
  readonly chat?: ChatHandler;
  /** For tests: the commands the engine has a handler for (undefined until `ready`). */
  readonly commandIds: readonly string[] | undefined;
  /** Time activate() itself took (module loading excluded). */
  readonly activateMs: number;
}
