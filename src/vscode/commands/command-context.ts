// What commands (and the notifications and the inbox, which answer the same requests) need
// from the extension: the team session, its agents, and the few operations several of them
// share.
import * as vscode from 'vscode';
import { ACTIONS, runAction, type ActionScope, type TeamSession, type TeamView } from '../../core/session';
import { windowScope } from '../host/window-scope';
import type { TaskStatus } from '../../shared/schemas';
import { CANCEL, pickOwner } from './questions';
import type { RuntimeHost } from '../host/runtime-host';
import type { ApiKeyStore } from '../host/secrets';
import type { TeamHost } from '../host/team-host';

export interface CommandContext {
  readonly log: vscode.LogOutputChannel;
  /** The window's team session: every user action goes through it. */
  readonly session: TeamSession;
  /** Where the session's actions run in this window (spec-from-action.ts). */
  readonly scope: ActionScope;
  /** Starts the agents of this window (trusted workspace and a key) and returns the session. */
  agents(): Promise<TeamSession>;
  /** The team's read models, its directories created on first use. */
  team(): Promise<TeamView>;
  /** The session, once its team's directories exist (for commands that write). */
  ready(): Promise<TeamSession>;
  askLead(prompt: string): Promise<void>;
  /** Answers a plan request as the user; throws with the reason when it cannot. */
  decidePlan(requestId: string, approve: boolean, feedback: string): Promise<void>;
  /** A plan was decided here: the views redraw without waiting for the file watcher. */
  planDecided(): void;
  openInbox(name?: string): Promise<void>;
  setApiKey(key: string): Promise<void>;
  /** The `openai:` provider's key (docs/models.md). */
  setOpenAIKey(key: string): Promise<void>;
  editTask(id: number): Promise<unknown>;
  refresh(): void;
  /** Transcript panels and the Changes view (watch-commands.ts). */
  readonly watch: WatchSurface;
}

export interface WatchSurface {
  openTranscript(agent: string): void;
  showChanges(agent?: string): Promise<void>;
  /** Review Plan: the plan of a request as a Markdown document (plan-review.ts). */
  reviewPlan(requestId: string): Promise<void>;
}

export interface ContextDeps {
  log: vscode.LogOutputChannel;
  host: TeamHost;
  runtime: RuntimeHost;
  keys: ApiKeyStore;
  showInbox(name?: string): Promise<void>;
  refreshViews(): void;
  watch: WatchSurface;
}

export function createCommandContext(d: ContextDeps): CommandContext {
  const team = () => d.host.ensureTeam();
  const session = d.host.session;
  const ready = async () => {
    await team();
    return session;
  };
  const scope = windowScope(session, team);
  const planDecided = () => d.host.fire(['requests', 'inbox']);
  return {
    log: d.log,
    session,
    scope,
    agents: () => d.runtime.ensure(),
    team,
    ready,
    async askLead(prompt) {
      await team();
      await d.runtime.ensure();
      // A lead turn can take minutes: the command returns once the prompt is handed over.
      runAction(ACTIONS.askLead, scope, { prompt }).catch((err: unknown) => {
        d.log.error(`Ask Lead: ${String(err)}`);
        void vscode.window.showErrorMessage(`Agent Teams: the lead failed: ${err instanceof Error ? err.message : String(err)}`);
      });
      d.host.fire(['roster', 'inbox']);
    },
    async decidePlan(requestId, approve, feedback) {
      if (approve) await runAction(ACTIONS.approvePlan, scope, { requestId, feedback });
      else await runAction(ACTIONS.rejectPlan, scope, { requestId, feedback });
      planDecided();
    },
    planDecided,
    openInbox: (name) => d.showInbox(name),
    async setApiKey(key) {
      await d.keys.set(key);
      await d.runtime.refreshModelConfig();
      void vscode.window.showInformationMessage(key.trim() ? 'Agent Teams: API key saved in secret storage.' : 'Agent Teams: API key removed.');
    },
    async setOpenAIKey(key) {
      await d.runtime.setOpenAIKey(key);
      void vscode.window.showInformationMessage(key.trim() ? 'Agent Teams: OpenAI API key saved in secret storage.' : 'Agent Teams: OpenAI API key removed.');
    },
    async editTask(id) {
      const t = await team();
      const task = await t.task(id);
      if (!task) throw new Error(`task ${id} not found`);
      const statuses: TaskStatus[] = ['pending', 'in_progress', 'completed'];
      const choice = await vscode.window.showQuickPick([
        ...statuses.filter((s) => s !== task.status).map((s) => ({ label: `Mark ${s.replace('_', ' ')}`, status: s })),
        { label: 'Set owner…', status: undefined },
        // A blocker deleted or moved aside as corrupt never completes: this is the way out.
        ...task.blockedBy.map((b) => ({ label: `Remove blocker #${b}`, status: undefined, unblock: b })),
      ], { title: `Edit task #${id}: ${task.subject}` });
      if (!choice) return undefined;
      if (choice.status) return runAction(ACTIONS.updateTask, scope, { id, status: choice.status });
      if ('unblock' in choice) return ACTIONS.unblockTask.run(scope, { id, from: [choice.unblock] });
      // Picked from the roster: a typo would make an owner nobody is, and the task unclaimable.
      const owner = await pickOwner(t, `Owner of task #${id}`);
      return owner === CANCEL ? undefined : runAction(ACTIONS.updateTask, scope, { id, owner });
    },
    refresh: d.refreshViews,
    watch: d.watch,
  };
}
