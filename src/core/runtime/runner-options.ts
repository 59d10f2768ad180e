// What the team session starts an agent runner with (agent-runner.ts), and the error the
// runner throws for a request it refuses (a name another host runs, a full team).
import type { McpHostOptions } from '../mcp/host';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import type { MergeQueue } from '../merge/merge-queue';
import type { EventHub } from './event-hub';
import type { Approver, ModelFactory, RuntimeSettings } from './types';

export interface RunnerOptions {
  /** The session's team: one per process, with one folder watcher. */
  team: Team;
  /** The session's events: the runner emits, the hosts listen there. */
  events: EventHub;
  worktrees: WorktreeManager;
  /** The merge queue (queue_merge, agentTeams.merge.auto). */
  mergeQueue: MergeQueue;
  settings: RuntimeSettings;
  models: ModelFactory;
  approver: Approver;
  hostId: string;
  heartbeatMs?: number;
  /** Resume teammates found working/idle in the roster (default true). */
  resume?: boolean;
  /** How this host's user raises a spent token budget (default: the VS Code setting). */
  raiseBudget?: string;
  /** MCP servers from `.mcp.json` (docs/mcp.md). */
  mcp?: McpHostOptions;
  /** PATH the sandbox engine is looked for on (default the process's; tests simulate a machine without it). */
  sandboxPath?: string;
  /**
   * Hooks from the folder's settings files (docs/hooks.md) run only when it is trusted: VS
   * Code starts agents only in a trusted workspace; the CLI passes its folder-trust answer.
   * Default true.
   */
  hooks?: { trusted?: boolean };
}

export class RuntimeError extends Error {}
