// Activation, kept lean: this module is the whole first bundle (dist/extension.js). It puts the
// views and every command on screen at once, with stand-ins (lazy-surface.ts), and loads the
// engine — the team session, the views' real providers, zod and the rest — from its own bundle
// (dist/engine.js) on the next turn of the event loop, so activation does not parse or run it.
// No module is in both bundles (docs/activation.md; test/vscode/lean-bundle.test.ts).
import * as vscode from 'vscode';
import type { Engine, EngineModule, ExtensionApi, Shell, TreeName } from './engine-api';
import { LazyTree, lazyModelProvider, lazySerializer, lazyWebviewView, registerCommandProxies } from './lazy-surface';

export type { ExtensionApi } from './engine-api';

let engine: Promise<Engine> | undefined;

interface Manifest { contributes: { commands: { command: string }[] } }

/** The tree views (package.json `contributes.views`): the one place their ids are written. */
const TREE_VIEWS: Record<TreeName, { id: string; showCollapseAll: boolean }> = {
  team: { id: 'agentTeams.team', showCollapseAll: false },
  tasks: { id: 'agentTeams.tasks', showCollapseAll: true },
  changes: { id: 'agentTeams.changes', showCollapseAll: true },
};
const TREE_NAMES = Object.keys(TREE_VIEWS) as TreeName[];

function byTree<T>(make: (name: TreeName) => T): Record<TreeName, T> {
  return Object.fromEntries(TREE_NAMES.map((n) => [n, make(n)])) as Record<TreeName, T>;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Agent Teams', { log: true });
  context.subscriptions.push(log);
  const root = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;

  let views: Shell['views'];
  let trees: Record<TreeName, LazyTree> | undefined;
  let loaded: Engine | undefined;
  const loading = new Promise<void>((next) => setImmediate(next)).then(() => {
    // Resolved next to this file: dist/engine.js in the extension, out/src/vscode/activation/surface.js in tests.
    const { startEngine } = require('./surface') as EngineModule;
    loaded = startEngine({ context, log, root, views });
    const providers = loaded.trees;
    if (trees && providers) for (const n of TREE_NAMES) trees[n].attach(providers[n]);
    return loaded;
  });
  engine = loading;
  const ready = loading.then(() => undefined);
  ready.catch((err: unknown) => {
    log.error(`Agent Teams could not start: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    void vscode.window.showErrorMessage(`Agent Teams could not start: ${err instanceof Error ? err.message : String(err)}`);
  });

  const ids = (context.extension.packageJSON as Manifest).contributes.commands.map((c) => c.command);
  context.subscriptions.push(...registerCommandProxies(ids, async (id) => {
    const e = await loading.catch(() => undefined);
    const run = e?.commands.get(id);
    if (e && !run) void vscode.window.showErrorMessage(`Agent Teams: ${id} is not available in this window.`);
    return run;
  }));
  // @team in the Chat view (docs/models.md): registered now, answered by the engine's handler.
  if (vscode.chat?.createChatParticipant) {
    const team = vscode.chat.createChatParticipant('agentTeams.team', async (request, chatContext, stream, token) => {
      const e = await loading.catch(() => undefined);
      if (!e?.chat) return void stream.markdown('Agent Teams needs an open folder for its team.');
      return e.chat(request, chatContext, stream, token);
    });
    team.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'agent-teams.svg');
    context.subscriptions.push(team);
  }
  // The models the user's keys reach, for the Chat view (docs/models.md): with or without a folder.
  if (vscode.lm?.registerLanguageModelChatProvider) {
    const models = lazyModelProvider(loading.then((e) => e.models, () => undefined));
    context.subscriptions.push(models, vscode.lm.registerLanguageModelChatProvider('agent-teams', models));
  }
  if (root) {
    const lazy = byTree(() => new LazyTree(loading));
    trees = lazy;
    views = byTree((n) => vscode.window.createTreeView(TREE_VIEWS[n].id, { treeDataProvider: lazy[n], showCollapseAll: TREE_VIEWS[n].showCollapseAll }));
    context.subscriptions.push(
      ...Object.values(lazy), ...Object.values(views),
      vscode.window.registerWebviewViewProvider('agentTeams.inbox', lazyWebviewView(loading.then((e) => e.inbox, () => undefined))),
      vscode.window.registerWebviewPanelSerializer('agentTeams.transcript', lazySerializer(loading.then((e) => e.transcripts, () => undefined))),
    );
  }
  return {
    root,
    ready,
    get teamTree() { return loaded?.api.teamTree; },
    get taskTree() { return loaded?.api.taskTree; },
    get transcripts() { return loaded?.api.transcripts; },
    get changes() { return loaded?.api.changes; },
    get chat() { return loaded?.api.chat; },
    get commandIds() { return loaded && [...loaded.commands.keys()]; },
    activateMs: performance.now() - started,
  };
}

/** Waits for the agents to stop and closes the team (disposables are synchronous; this is not). */
export async function deactivate(): Promise<void> {
  const e = await engine?.catch(() => undefined);
  engine = undefined;
  await e?.deactivate();
}
