// The agents' settings, events and activity, and the small interfaces through which hosts
// plug in the model factory and approvals (the team session passes them to the runner).
import type { McpAsker } from '../mcp/host';
import type { ModelClient, ModelStatus } from '../model';
import type { JobInfo } from '../exec/jobs';
import type { TranscriptEntry } from './transcript';
import type { WorktreeSetup } from '../worktree/setup-config';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../../shared/sandbox-schemas';
import type { ContainerFile } from '../../shared/container-schemas';
import type { ContainerState } from '../container/container-state';
import type { NetworkDecision } from '../sandbox/sandbox';

export type PlanApprover = 'user' | 'lead';
export type BashPolicy = 'ask' | 'allow' | 'deny';

export interface RuntimeSettings {
  model: string;
  maxRounds: number;
  idlePollSeconds: number;
  /** 0 = never. */
  idleTimeoutSeconds: number;
  planApproval: PlanApprover;
  bashPolicy: BashPolicy;
  /** 0 = none. Counts input + output + cache read + cache write tokens of the whole team. */
  tokenBudget: number;
  maxTeammates: number;
  /** Mail to an idle lead starts a lead turn. */
  wakeLeadOnMail: boolean;
  /** Estimated context tokens at which an agent's conversation is compacted. */
  compactAtTokens: number;
  bashTimeoutSeconds: number;
  /** Whether teammates start in plan mode unless the spawn says otherwise. */
  requirePlan: 'never' | 'always';
  /** The user confirms the teammates the lead proposes before any is spawned. */
  confirmTeam: boolean;
  /** Permission rules in Claude Code's syntax (docs/permissions.md); malformed ones are reported and ignored. */
  permissions: PermissionLists;
  /** agentTeams.merge.auto: queue a worktree teammate's branch when its task completes (docs/file-formats.md, "Merge queue"). */
  mergeAuto: 'off' | 'onTaskComplete';
  /** agentTeams.merge.testCommand (CLI --merge-test): the merge queue's test gate; '' = `.team/settings.json`'s, else none. */
  mergeTestCommand: string;
  /** agentTeams.worktree.setup: copy and setup for a new worktree, over `.team/settings.json`'s (worktree/setup-config.ts). */
  worktreeSetup?: WorktreeSetup;
  /** Where commands run (docs/security.md): mode, hosts they may reach, asking less inside. */
  sandbox: SandboxSettings;
  /** agentTeams.container.* (CLI --container-host): teammates' containers, over `.team/settings.json`'s "container" (docs/containers.md). */
  container?: ContainerFile;
}

export interface PermissionLists {
  allow: string[];
  ask: string[];
  deny: string[];
}

export const DEFAULT_SETTINGS: RuntimeSettings = {
  model: 'claude-sonnet-5-5',
  maxRounds: 50,
  idlePollSeconds: 5,
  idleTimeoutSeconds: 60,
  planApproval: 'user',
  bashPolicy: 'ask',
  tokenBudget: 0,
  maxTeammates: 8,
  wakeLeadOnMail: true,
  compactAtTokens: 120_000,
  bashTimeoutSeconds: 120,
  requirePlan: 'never',
  confirmTeam: false,
  permissions: { allow: [], ask: [], deny: [] },
  mergeAuto: 'off',
  mergeTestCommand: '',
  sandbox: DEFAULT_SANDBOX,
};

/** Creates the client one agent talks to; `onStatus` feeds that agent's activity. */
export type ModelFactory = (model: string, onStatus: (s: ModelStatus) => void) => ModelClient;

export type BashDecision = 'allow' | 'deny';

/** Why a command is asked about, and the rules "Always allow" may write (docs/permissions.md). */
export interface BashQuestion {
  reason: string;
  /** The exact command as a rule, then (for one plain command) its prefix rule. */
  suggestions: string[];
  /** The agent asked to run it outside the sandbox (`unsandboxed: true`): no rule can allow that. */
  unsandboxed?: boolean;
}

/** A file change an `ask` rule holds back until the user has seen it. */
export interface FileChangeQuestion {
  /** As the agent named it, relative to its folder. */
  path: string;
  /** Real absolute path. */
  abs: string;
  /** null: the file does not exist yet. */
  before: string | null;
  after: string;
  rule: string;
  /** Why it is asked when no rule asked (a change to `.mcp.json` or `.claude/**` always is). */
  why?: string;
}

/** bash here; MCP's two questions (a tool call, a server's first start) in McpAsker (docs/mcp.md). */
export interface Approver extends McpAsker {
  /**
   * Asked for a bash call no rule decided while the policy is `ask`, or one an ask rule
   * matched. "Always allow" writes one of `question.suggestions` to the allow rules.
   */
  bash(agent: string, command: string, signal: AbortSignal, question?: BashQuestion): Promise<BashDecision>;
  /** An ask rule on Edit/Write: show the change (a diff) with Allow / Deny. Absent: deny. */
  fileChange?(agent: string, change: FileChangeQuestion, signal: AbortSignal): Promise<BashDecision>;
  /**
   * A sandboxed command wants to reach `host` (with `:port` for loopback), which
   * agentTeams.sandbox.allowedDomains does not list: Allow (this session) / Always allow (the
   * host adds it to the setting) / Deny. Asked once per host. Absent: denied.
   */
  network?(agent: string, host: string, signal: AbortSignal): Promise<NetworkDecision>;
  /** Any other ask rule (Read, MCP tools): one line, Allow / Deny. Absent: deny. */
  tool?(agent: string, what: string, reason: string, signal: AbortSignal): Promise<BashDecision>;
  /**
   * Under agentTeams.confirmTeam: the lead proposes a team (the spawns of one reply), started
   * only on the user's yes; a no may say why (the lead reads it). Absent = nobody to ask (declined).
   */
  confirmTeam?(team: readonly TeammateProposal[], signal: AbortSignal): Promise<TeamAnswer>;
}

/** The user's answer to a proposed team: all of it starts, or none, with what to change. */
export type TeamAnswer = { start: true } | { start: false; reason?: string };

/** One teammate of a team the user is shown before the lead's spawns start it (agentTeams.confirmTeam). */
export interface TeammateProposal {
  name: string;
  role: string;
  /** The model it would run on (its own, or the team's). */
  model: string;
  agent_type?: string | null;
  plan_mode: boolean;
}

/** One line for a notification or the CLI prompt. */
export function proposalText(p: TeammateProposal): string {
  return `${p.name} (${p.role}${p.agent_type ? `, from ${p.agent_type}` : ''}) on ${p.model}${p.plan_mode ? ', planning first' : ''}`;
}

/** What an agent is doing right now (finer than the roster's working/idle/shutdown). */
export type Activity =
  | { kind: 'idle' }
  | { kind: 'requesting' }
  | { kind: 'streaming' }
  | { kind: 'retrying'; inMs: number; reason: string; attempt: number }
  | { kind: 'tool'; tool: string }
  | { kind: 'waiting-approval'; what: string }
  | { kind: 'paused'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'stopped' }
  | { kind: 'remote'; host: string };

export type RuntimeEvent =
  | { type: 'activity'; agent: string; activity: Activity }
  | { type: 'text'; agent: string; text: string }
  /** Part of an agent's text as the model streams it; `attempt` changes when a retry starts over. 'text' follows with the whole. */
  | { type: 'text_delta'; agent: string; text: string; attempt: number }
  /** A tool call about to run (`id`: the model's tool_use id). */
  | { type: 'tool_start'; agent: string; id: string; tool: string; input: unknown }
  | { type: 'tool'; agent: string; tool: string; input: unknown; result: string; isError: boolean; id?: string }
  /** A line just appended to the agent's transcript (docs/file-formats.md, "Transcripts"). */
  | { type: 'transcript'; agent: string; entry: TranscriptEntry }
  /** `mcpServer`: a failed MCP server the user may restart (docs/mcp.md). */
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string; agent?: string; mcpServer?: string }
  | { type: 'usage'; agent: string; total: number }
  /** An agent's background jobs changed (started, ended, killed). */
  | { type: 'jobs'; agent: string; jobs: JobInfo[] }
  /** A container teammate's container changed state (docs/containers.md); null: removed. */
  | { type: 'container'; agent: string; container: ContainerState | null };

export interface Disposable {
  dispose(): void;
}

export interface SpawnInput {
  name: string;
  role: string;
  prompt: string;
  /** A model id or alias (opus, sonnet, haiku, inherit); beats the definition's. */
  model?: string | null;
  /** `container`: its commands and file tools in a container of its own (docs/containers.md). */
  isolation?: 'none' | 'worktree' | 'container';
  /** An agent definition's name (.team/agents, .claude/agents). */
  agent_type?: string | null;
  /** Start in plan mode; default from the setting requirePlan. */
  plan_mode_required?: boolean | null;
  /** A task it starts on, claimed for it before its first model call. */
  task?: number | null;
}
