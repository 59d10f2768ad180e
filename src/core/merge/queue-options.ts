// What a merge queue is built with (merge-queue.ts) and what the worker working it
// (queue-worker.ts, entry-steps.ts) is given; apart so those files need not import each other.
import type { SandboxSettings } from '../../shared/sandbox-schemas';
import type { MergeAuto } from '../../shared/schemas/team-settings';
import type { ProcessRegistry } from '../exec/process-group';
import type { RuleSource } from '../permissions/rules';
import type { CommandSandbox } from '../sandbox/sandbox';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import type { WorktreeSetup } from '../worktree/setup-config';
import type { AskChange } from './control-gate';
import type { QueueStore } from './queue-store';

export type Notify = (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;

/** Where the queue's tests run (docs/security.md): the host's sandbox, or one the queue makes from the settings. */
export type TestSandbox = Pick<CommandSandbox, 'launch'> & Partial<Pick<CommandSandbox, 'prepare'>>;

export interface MergeQueueOptions {
  team: Team;
  worktrees: WorktreeManager;
  hostId: string;
  /**
   * agentTeams.merge.* (or the CLI's flags); `.team/settings.json` fills what is unset. The
   * sandbox settings and permission rules apply to the test command when the host working the
   * queue lends no sandbox of its own (WorkerHost.sandbox).
   */
  settings: () => { mergeAuto?: MergeAuto; mergeTestCommand?: string; sandbox?: SandboxSettings; permissions?: RuleSource; worktreeSetup?: WorktreeSetup };
}

/** What the host working the queue lends it (MergeQueue.start). */
export interface WorkerHost {
  /** Whose registry the tests are tracked in (as the queue's, never a teammate's). */
  processes?: ProcessRegistry;
  sandbox?: TestSandbox;
  notify?: Notify;
  /** Asks the user about a control file an entry changes (a diff, Allow / Deny). Absent (headless): the entry is held for `queue approve`. */
  askChange?: AskChange;
  /** Starts a teammate that has shut down again with `prompt` (same name: conversation and worktree resumed; queue-notes.ts); false when it could not. */
  bringBack?: (teammate: string, prompt: string) => Promise<boolean>;
}

export interface WorkerOptions extends MergeQueueOptions, Omit<WorkerHost, 'sandbox' | 'notify'> {
  store: QueueStore;
  tests: TestSandbox;
  notify: Notify;
}
