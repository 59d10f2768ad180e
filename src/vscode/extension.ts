// Activation: builds the VS Code surface over the window's one team session (core) for the
// first workspace folder — team host, agent host, views, commands, notifications, status
// bar — and registers every disposable in context.subscriptions so deactivation releases it.
import * as vscode from 'vscode';
import { TeamSession } from '../core/session/team-session';
import { createApprover } from './approver';
import { BashAsks } from './bash-asks';
import { ChangesProvider } from './changes-view';
import { TranscriptPanels } from './transcript-panel';
import { registerChangeCommands } from './watch-commands';
import { createCommandContext, type CommandContext } from './command-context';
import { registerCommands, registerWithoutFolder } from './commands';
import { InboxViewProvider } from './inbox-view';
import { createLog, routeProblems } from './log';
import { RequestNotifier, showNotice } from './notifications';
import { RuntimeHost } from './runtime-host';
import { ApiKeyStore } from './secrets';
import { onSettingsChange, readSettings } from './settings';
import { TeamStatusBar } from './status-bar';
import { TaskTreeProvider } from './task-tree';
import { TeamHost } from './team-host';
import { TeamTreeProvider } from './team-tree';

export interface ExtensionApi {
  /** For tests: the workspace root the team lives in. */
  readonly root: string | undefined;
  readonly teamTree: TeamTreeProvider | undefined;
  readonly taskTree: TaskTreeProvider | undefined;
  /** For tests: open transcript panels and the Changes view. */
  readonly transcripts?: TranscriptPanels;
  readonly changes?: ChangesProvider;
  /** Time activate() itself took (module loading excluded). */
  readonly activateMs: number;
}

let current: TeamSession | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const started = performance.now();
  const log = createLog();
  const keys = new ApiKeyStore(context.secrets);
  context.subscriptions.push(log, routeProblems(log), keys);
  void keys.refreshContext();
  const root = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  if (!root) {
    // The welcome view offers Open Folder; opening one restarts the extension host.
    log.info('no folder open: Agent Teams waits for one');
    context.subscriptions.push(...registerWithoutFolder(log));
    return { root, teamTree: undefined, taskTree: undefined, activateMs: performance.now() - started };
  }

  const session = new TeamSession({ root, settings: readSettings() });
  current = session;
  const host = new TeamHost(session, log);
  const asks = new BashAsks();
  const runtime = new RuntimeHost(session, keys, createApprover(context.workspaceState, asks, context.subscriptions), log);
  const defaultModel = () => readSettings().model;
  const agents = { activity: (a: string) => session.activity(a), defaultModel, mcpServers: () => runtime.mcpServers(), jobs: (a: string) => session.jobs(a) };
  const teamTree = new TeamTreeProvider(host, agents);
  const taskTree = new TaskTreeProvider(host);
  const statusBar = new TeamStatusBar(host, defaultModel);
  let ctx: CommandContext | undefined;
  const inbox = new InboxViewProvider(context.extensionUri, host, () => ctx!, log);
  const changes = new ChangesProvider(root);
  const changesView = vscode.window.createTreeView('agentTeams.changes', { treeDataProvider: changes, showCollapseAll: true });
  const transcripts = new TranscriptPanels({ extensionUri: context.extensionUri, host, ctx: () => ctx!, asks, log });
  const watch = {
    openTranscript: (agent: string) => transcripts.open(agent),
    async showChanges(agent?: string) {
      changes.refresh();
      await vscode.commands.executeCommand('agentTeams.changes.focus');
      if (!agent) return;
      await changes.getChildren();
      const node = changes.agentNode(agent);
      if (node) await changesView.reveal(node, { expand: true, select: true, focus: true });
      else void vscode.window.showInformationMessage(`Agent Teams: ${agent} has changed no files yet.`);
    },
  };
  ctx = createCommandContext({
    log, host, runtime, keys, watch,
    showInbox: (name) => inbox.show(name),
    refreshViews: () => { teamTree.refresh(true); taskTree.refresh(); },
  });
  const notifier = new RequestNotifier(host, ctx);
  const teamView = vscode.window.createTreeView('agentTeams.team', { treeDataProvider: teamTree, showCollapseAll: false });
  const taskView = vscode.window.createTreeView('agentTeams.tasks', { treeDataProvider: taskTree, showCollapseAll: true });
  const setRestrictedMessage = () => {
    const msg = vscode.workspace.isTrusted ? undefined : 'Restricted Mode: agents do not run in this untrusted workspace.';
    teamView.message = msg;
    taskView.message = msg;
  };
  setRestrictedMessage();
  // In a multi-root workspace the team lives in the first folder: say which.
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length > 1) {
    const name = folders.find((f) => f.uri.fsPath === root)?.name ?? root;
    teamView.description = name;
    taskView.description = name;
    log.info(`multi-root workspace: the team lives in "${name}" (the first folder)`);
  }

  context.subscriptions.push(
    host, runtime, teamTree, taskTree, statusBar, inbox, notifier, teamView, taskView, asks, changes, changesView, transcripts,
    ...registerChangeCommands(changes, log),
    vscode.window.registerWebviewViewProvider(InboxViewProvider.viewId, inbox),
    ...registerCommands(ctx),
    onSettingsChange((s, baseUrlChanged) => {
      runtime.updateSettings(s);
      if (baseUrlChanged) void runtime.refreshModelConfig();
    }),
    // A new key reaches running agents, or wakes a team that could not resume without one.
    keys.onDidChange(() => void runtime.refreshModelConfig().then(() => resumeTeam(host, runtime, keys, log))),
    // MCP server states live in memory, like activity (docs/mcp.md).
    runtime.onMcpChange(() => host.fire(['activity'])),
    runtime.onEvent((e) => {
      // Usage lands in the roster file (its watcher says 'roster'); activity is only in memory.
      if (e.type === 'activity' || e.type === 'jobs') host.fire(['activity']);
      showNotice(e, log);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      setRestrictedMessage();
      void resumeTeam(host, runtime, keys, log);
    }),
  );

  // Not awaited: activation stays short; the views read the files themselves meanwhile.
  void host.start().then(async () => {
    await Promise.all([statusBar.update(), notifier.scan()]);
    await resumeTeam(host, runtime, keys, log);
  }).catch((err: unknown) => log.error(`could not open the team in ${root}: ${String(err)}`));
  const activateMs = performance.now() - started;
  log.info(`activated in ${activateMs.toFixed(1)} ms for ${root}`);
  return { root, teamTree, taskTree, activateMs, transcripts, changes };
}

/** After a reload: a team that exists resumes when agents may run here. */
async function resumeTeam(host: TeamHost, runtime: RuntimeHost, keys: ApiKeyStore, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted || runtime.running || !(await keys.hasKey()) || !(await host.hasTeam())) return;
  try {
    await runtime.ensure();
  } catch (err) {
    log.warn(`the team could not resume: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Waits for the agents to stop and closes the team (disposables are synchronous; this is not). */
export async function deactivate(): Promise<void> {
  await current?.dispose();
  current = undefined;
}
