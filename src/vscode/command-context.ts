// What commands (and the notifications and the inbox, which answer the same requests) need
// from the extension: the team, the runtime, and the few operations several of them share.
import * as vscode from 'vscode';
import type { Team } from '../core/team/team';
import { WorktreeManager } from '../core/worktree/manager';
import type { TaskStatus } from '../shared/team-schemas';
import { CANCEL, pickOwner } from './prompts';
import type { RuntimeHost } from './runtime-host';
import type { ApiKeyStore } from './secrets';
import type { TeamHost } from './team-host';

export interface CommandContext {
  readonly log: vscode.LogOutputChannel;
  readonly runtime: RuntimeHost;
  /** The team, its directories created on first use. */
  team(): Promise<Team>;
  /** The running team's worktree manager, or one over the workspace when no agent runs. */
  worktrees(): WorktreeManager;
  askLead(prompt: string): Promise<void>;
  /** Answers a plan request as the user; throws with the reason when it cannot. */
  decidePlan(requestId: string, approve: boolean, feedback: string): Promise<void>;
  openInbox(name?: string): Promise<void>;
  setApiKey(key: string): Promise<void>;
  editTask(id: number): Promise<unknown>;
  refresh(): void;
  /** Transcript panels and the Changes view (watch-commands.ts). */
  readonly watch: WatchSurface;
}

export interface WatchSurface {
  openTranscript(agent: string): void;
  showChanges(agent?: string): Promise<void>;
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
  let idleWorktrees: WorktreeManager | undefined;
  return {
    log: d.log,
    runtime: d.runtime,
    team,
    worktrees: () => d.runtime.current?.worktrees ?? (idleWorktrees ??= new WorktreeManager(d.host.root)),
    async askLead(prompt) {
      await team();
      const rt = await d.runtime.ensure();
      // A lead turn can take minutes: the command returns once the prompt is handed over.
      rt.askLead(prompt).catch((err: unknown) => {
        d.log.error(`Ask Lead: ${String(err)}`);
        void vscode.window.showErrorMessage(`Agent Teams: the lead failed: ${err instanceof Error ? err.message : String(err)}`);
      });
      d.host.fire(['roster', 'inbox']);
    },
    async decidePlan(requestId, approve, feedback) {
      const rt = d.runtime.current;
      if (rt) {
        await rt.decidePlan(requestId, approve, feedback);
      } else {
        const r = await (await team()).decidePlan('user', requestId, approve, feedback);
        if (!r.ok) throw new Error(r.error);
      }
      d.host.fire(['requests', 'inbox']);
    },
    openInbox: (name) => d.showInbox(name),
    async setApiKey(key) {
      await d.keys.set(key);
      await d.runtime.refreshModelConfig();
      void vscode.window.showInformationMessage(key.trim() ? 'Agent Teams: API key saved in secret storage.' : 'Agent Teams: API key removed.');
    },
    async editTask(id) {
      const t = await team();
      const task = await t.tasks.get(id);
      if (!task) throw new Error(`task ${id} not found`);
      const statuses: TaskStatus[] = ['pending', 'in_progress', 'completed'];
      const choice = await vscode.window.showQuickPick([
        ...statuses.filter((s) => s !== task.status).map((s) => ({ label: `Mark ${s.replace('_', ' ')}`, status: s })),
        { label: 'Set owner…', status: undefined },
        // A blocker deleted or moved aside as corrupt never completes: this is the way out.
        ...task.blockedBy.map((b) => ({ label: `Remove blocker #${b}`, status: undefined, unblock: b })),
      ], { title: `Edit task #${id}: ${task.subject}` });
      if (!choice) return undefined;
      if (choice.status) return t.tasks.update(id, { status: choice.status });
      if ('unblock' in choice) return t.tasks.update(id, { removeBlockedBy: [choice.unblock] });
      // Picked from the roster: a typo would make an owner nobody is, and the task unclaimable.
      const owner = await pickOwner(t, `Owner of task #${id}`);
      return owner === CANCEL ? undefined : t.tasks.update(id, { owner });
    },
    refresh: d.refreshViews,
    watch: d.watch,
  };
}
