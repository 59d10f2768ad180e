// The engine of the extension (dist/engine.js), loaded by the first bundle (extension.ts)
// right after activation: builds the VS Code surface over the window's one team session
// (core) for the first workspace folder — team host, agent host, the views' providers, the
// command handlers, notifications, status bar — and registers every disposable in
// context.subscriptions so deactivation releases it (docs/activation.md).
import * as vscode from 'vscode';
import { TeamSession } from '../../core/session';
import { createApprover } from '../approvals/approver';
import { BashAsks } from '../approvals/bash-asks';
import { ChangesProvider } from '../views/changes-view';
import { windowScope } from '../host/window-scope';
import { TeamFolderDecorations } from '../views/team-folders';
import { TranscriptPanels } from '../webviews/transcript-panel';
import { changeCommands } from '../commands/watch-commands';
import { createCommandContext, type CommandContext } from '../commands/command-context';
import { commandHandlers, withoutFolderHandlers } from '../commands/handlers';
import type { CommandHandler, Engine, Shell } from './engine-api';
import { InboxViewProvider } from '../webviews/inbox-view';
import { routeProblems } from '../host/log';
import { RequestNotifier, showNotice } from '../approvals/notifications';
import { RuntimeHost } from '../host/runtime-host';
import { ANSWER_COMMAND, answerCommandHandler, chatHandler } from '../models/chat-participant';
import { ApiKeyStore } from '../host/secrets';
import { setContext, trackWalkthrough, walkthroughEvent } from '../host/walkthrough';
import { onSettingsChange, readSettings } from '../host/settings';
import { TeamStatusBar } from '../views/status-bar';
import { SandboxStatus } from '../views/sandbox-status';
import { TaskTreeProvider } from '../views/task-tree';
import { TeamHost } from '../host/team-host';
import { TeamTreeProvider } from '../views/team/team-tree';
import { mergeDiffContent } from '../commands/queue-commands';
import { PLAN_SCHEME, PlanDocuments } from '../approvals/plan-review';
import { keyedModelFactory, TeamModelProvider } from '../models/model-provider';

let current: TeamSession | undefined;

export function startEngine(shell: Shell): Engine {
  const started = performance.now();
  const { context, log, root, views } = shell;
  trackWalkthrough(context.extension, log);
  const keys = new ApiKeyStore(context.secrets);
  const openaiKeys = new ApiKeyStore(context.secrets, 'agentTeams.openaiApiKey', 'OPENAI_API_KEY', null);
  const models = chatModels(keys, openaiKeys, log, context.subscriptions);
  context.subscriptions.push(routeProblems(log), keys, openaiKeys, models);
  void keys.refreshContext();
  if (!root || !views) {
    // The welcome view offers Open Folder; opening one restarts the extension host.
    log.info('no folder open: Agent Teams waits for one');
    return { commands: new Map(withoutFolderHandlers(log)), models, api: {}, deactivate: async () => undefined };
  }

  const session = new TeamSession({ root, settings: readSettings() });
  current = session;
  const host = new TeamHost(session, log);
  const asks = new BashAsks();
  const runtime = new RuntimeHost(session, keys, createApprover(context.workspaceState, asks, context.subscriptions), log, openaiKeys, context.globalState);
  // `agentTeams.canStart`: the team's model has what it needs (a key for its provider, none for
  // a `vscode:` model). The views' welcome and the walkthrough's "key or model" step read it.
  const readiness = () => void runtime.canStart().then((ok) => setContext('agentTeams.canStart', ok), () => undefined);
  readiness();
  const defaultModel = () => readSettings().model;
  const sandbox = new SandboxStatus(session, () => host.fire(['activity']), log);
  const agents = {
    activity: (a: string) => session.activity(a), defaultModel, mcpServers: () => runtime.mcpServers(), jobs: (a: string) => session.jobs(a),
    sandbox: () => sandbox.report, hooks: () => session.hooks(), container: (a: string) => session.containerState(a),
    removableWorktrees: async () => (await session.worktreeViews()).filter((w) => w.removable).map((w) => w.name),
  };
  const teamTree = new TeamTreeProvider(host, agents);
  const taskTree = new TaskTreeProvider(host);
  const statusBar = new TeamStatusBar(host, defaultModel, () => sandbox.report, () => session.activity('lead'));
  let ctx: CommandContext | undefined;
  const inbox = new InboxViewProvider(context.extensionUri, host, () => ctx!, log);
  const changes = new ChangesProvider(session.view.changeLog(), windowScope(session, () => host.ensureTeam()), (onChange) => session.watchFiles(['changes'], onChange));
  const changesView = views.changes;
  const transcripts = new TranscriptPanels({ extensionUri: context.extensionUri, host, ctx: () => ctx!, asks, log });
  const plans = new PlanDocuments((id) => session.view.request(id));
  const watch = {
    openTranscript: (agent: string) => transcripts.open(agent),
    async reviewPlan(requestId: string) {
      const r = await session.view.request(requestId);
      if (!r || r.kind !== 'plan') throw new Error('that plan request does not exist');
      await plans.show(r);
    },
    async showChanges(agent?: string) {
      await changes.refresh();
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
    refreshViews: () => { teamTree.refresh(true); void taskTree.refresh(true); },
  });
  const notifier = new RequestNotifier(host, ctx);
  const { team: teamView, tasks: taskView } = views;
  const setRestrictedMessage = () => {
    const msg = vscode.workspace.isTrusted ? undefined : 'Restricted Mode: agents do not run in this untrusted workspace.';
    teamView.message = msg;
    taskView.message = msg;
  };
  setRestrictedMessage();
  const teamShown = (visible: boolean) => { if (visible) walkthroughEvent('onView:agentTeams.team'); };
  teamShown(teamView.visible);
  // In a multi-root workspace the team lives in the first folder: say which.
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length > 1) {
    const name = folders.find((f) => f.uri.fsPath === root)?.name ?? root;
    teamView.description = name;
    taskView.description = name;
    log.info(`multi-root workspace: the team lives in "${name}" (the first folder)`);
  }

  const change = changeCommands(changes, log);
  const commands = new Map<string, CommandHandler>([...commandHandlers(ctx), ...change.handlers, [ANSWER_COMMAND, answerCommandHandler(asks)]]);
  const chat = chatHandler({ session, scope: ctx.scope, agents: () => runtime.ensure(), asks, log });
  context.subscriptions.push(
    plans, vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, plans),
    vscode.window.registerFileDecorationProvider(new TeamFolderDecorations(vscode.Uri.file(root))),
    host.onDidChange((what) => { if (what.has('requests')) plans.refresh(); }),
    teamView.onDidChangeVisibility((e) => teamShown(e.visible)),
    host, runtime, teamTree, taskTree, statusBar, inbox, notifier, asks, changes, transcripts, change.content, mergeDiffContent(root),
    onSettingsChange((s, baseUrlChanged) => {
      runtime.updateSettings(s);
      readiness();
      void sandbox.refresh().then(() => statusBar.update());
      if (baseUrlChanged) void runtime.refreshModelConfig();
    }),
    // A new key reaches running agents, or wakes a team that could not resume without one.
    keys.onDidChange(() => void runtime.refreshModelConfig().then(() => resumeTeam(host, runtime, keys, log))),
    keys.onDidChange(readiness), openaiKeys.onDidChange(readiness),
    // MCP server states live in memory, like activity (docs/mcp.md).
    runtime.onMcpChange(() => host.fire(['activity'])),
    runtime.onEvent((e) => {
      // Usage lands in the roster file (its watcher says 'roster'); activity is only in memory.
      if (e.type === 'activity' || e.type === 'jobs' || e.type === 'container') host.fire(['activity']);
      showNotice(e, log, () => session.activity('lead').kind === 'remote');
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      setRestrictedMessage();
      void resumeTeam(host, runtime, keys, log);
    }),
  );

  // Not awaited: the views read the files themselves meanwhile.
  void host.start().then(async () => {
    await sandbox.refresh();
    await Promise.all([statusBar.update(), notifier.scan()]);
    await resumeTeam(host, runtime, keys, log);
  }).catch((err: unknown) => log.error(`could not open the team in ${root}: ${String(err)}`));
  log.info(`engine started in ${(performance.now() - started).toFixed(1)} ms for ${root}`);
  return {
    commands,
    trees: { team: teamTree, tasks: taskTree, changes },
    inbox,
    transcripts,
    models,
    api: { teamTree, taskTree, transcripts, changes, chat },
    chat,
    deactivate,
  };
}

/** The Chat view's models (model-provider.ts), listed again when a key or the team's model changes. */
function chatModels(keys: ApiKeyStore, openaiKeys: ApiKeyStore, log: vscode.LogOutputChannel, subs: vscode.Disposable[]): TeamModelProvider {
  const provider = new TeamModelProvider({
    log,
    teamModel: () => readSettings().model,
    hasKey: (p) => (p === 'anthropic' ? keys : openaiKeys).hasKey(),
    factory: async () => keyedModelFactory(await keys.stored(), await openaiKeys.stored()),
  });
  const refresh = () => provider.refresh();
  subs.push(keys.onDidChange(refresh), openaiKeys.onDidChange(refresh),
    vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('agentTeams.model')) refresh(); }));
  return provider;
}

/** After a reload: a team that exists resumes when agents may run here. */
async function resumeTeam(host: TeamHost, runtime: RuntimeHost, _keys: ApiKeyStore, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted || runtime.running || !(await runtime.canStart()) || !(await host.hasTeam())) return;
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
