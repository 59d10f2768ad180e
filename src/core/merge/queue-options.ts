// What a merge queue is built with (merge-queue.ts) and what the host working it supplies
// (queue-worker.ts); apart so the two need not import each other.
import type { SandboxSettings } from '../../shared/sandbox-schemas';
import type { ProcessRegistry } from '../exec/process-group';
import type { RuleSource } from '../permissions/rules';
import type { CommandSandbox } from '../sandbox/sandbox';
import type { Team } from '../team/team';
import type { GitEnvOptions } from '../worktree/git';
import type { WorktreeManager } from '../worktree/manager';
import type { WorktreeSetup } from '../worktree/setup-config';
import type { AskChange } from './control-gate';
import type { MergeAuto } from './merge-settings';
import type { QueueStore } from './queue-store';

export interface MergeQueueOptions {
  team: Team;
  worktrees: WorktreeManager;
  hostId: string;
  /**
   * agentTeams.merge.* (or the CLI's flags); `.team/settings.json` fills what is unset. The
   * sandbox settings and permission rules apply to the test command when the host working the
   * queue has no sandbox of its own to lend (WorkerHost.sandbox).
   */
  settings: () => { mergeAuto?: MergeAuto; mergeTestCommand?: string; sandbox?: SandboxSettings; permissions?: RuleSource; worktreeSetup?: WorktreeSetup };
  git?: GitEnvOptions;
  /** Limit for one test run (default 10 minutes); the command and its processes are killed. */
  testTimeoutMs?: number;
  /** How often a waiting entry looks at the user's tree again (default 2 s). */
  pollMs?: number;
}

/** Where the worker's outcomes are told (the host's notices) and whose registry runs the tests. */
export interface WorkerHost {
  processes?: ProcessRegistry;
  /**
   * Where the test commands run: the host's sandbox, as every command an agent starts
   * (docs/security.md). Without one the worker makes its own from the settings.
   */
  sandbox?: Pick<CommandSandbox, 'launch'> & Partial<Pick<CommandSandbox, 'prepare'>>;
  notify?: (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;
  /**
   * Asks the user about a control file an entry changes (the Approver's fileChange: the diff,
   * Allow / Deny). Absent (headless): such an entry is refused and held for `queue approve`.
   */
  askChange?: AskChange;
}

/** What the worker (queue-worker.ts) and an entry's steps (entry-steps.ts) are given. */
export interface WorkerOptions extends MergeQueueOptions {
  store: QueueStore;
  git: GitEnvOptions;
  processes?: ProcessRegistry;
  sandbox?: WorkerHost['sandbox'];
  notify: (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;
  askChange?: AskChange;
}
