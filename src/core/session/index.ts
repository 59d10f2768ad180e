// The door into the team (ARCHITECTURE.md "The door"): everything a host — the VS Code
// extension, the CLI — may use of the core, and nothing else. Hosts import `core/session`
// (and `core/session/models` for the model client, loaded with the first agent);
// test/layering.test.ts refuses any other import of core from src/vscode or src/cli.
//
// What is here, by kind:
// - the session and its user actions (actions/: one definition per action);
// - the host contract: what a host supplies (Approver, ModelFactory, settings);
// - events: what agents do (RuntimeEvent), what changed on disk (TeamChange);
// - read models: the types of roster, board, inbox, requests, transcripts, changes, jobs,
//   MCP servers and worktrees, and the readers that load them;
// - team words: the same wording of team state in every host.

// ── the session ──
export { SessionError, TeamSession, type AgentOptions, type TeamSessionOptions } from './team-session';
export { TeamView, type RequestFilter } from './team-view';
export type { InboxFeed } from './inbox-feed';
export { WorktreeInUseError, type WorktreeView } from '../worktree/in-use';
export * from './actions';

// ── the host contract ──
export {
  DEFAULT_SETTINGS, proposalText,
  type Activity, type Approver, type BashDecision, type BashPolicy, type BashQuestion, type Disposable,
  type FileChangeQuestion, type ModelFactory, type PermissionLists, type PlanApprover, type RuntimeEvent,
  type RuntimeSettings, type SpawnInput, type TeamAnswer, type TeammateProposal,
} from '../runtime/types';
export { teamProposalText } from '../runtime/team-proposal';
export type { McpHostOptions } from '../mcp/host';
export type { McpStartRequest } from '../mcp/manager';
export { askReason } from '../permissions/decide';
export { onProblem, reportProblem, type Problem } from '../util/problems';
export { writeJsonAtomic } from '../util/atomic-file';

// ── events and change notices ──
export type { TeamChange } from '../team/team';
export type { FileEvent, FileKind } from '../team/team-files';
export { coalesce } from '../util/coalesce';

// ── read models ──
export { liveForeignHost } from '../runtime/lease';
export { isPlanning, PLANNING_WORDS } from '../roles/plan-mode';
export { resolveModel } from '../roles/models';
export { loadTeamDefinitions } from '../roles/roles';
export type { AgentDefinition } from '../roles/agent-definitions';
export type { JobInfo } from '../exec/jobs';
export type { ContainerState } from '../container/container-state';
export { containerWords, engineWords } from './container-words';
export { HOOK_EVENTS, loadHookConfig, type HookSpec } from '../hooks/config';
export { describeSandbox, sandboxReportText, type SandboxReport } from '../sandbox/describe';
export { gitExposureWarning, trackedHidden } from '../sandbox/git-exposed';
export type { NetworkDecision } from '../sandbox/sandbox';
export type { McpServerInfo } from '../mcp/manager';
export { probeMcpServers } from './mcp-probe';
export { commandLine, readMcpConfig, type McpConfig } from '../mcp/config';
export { stateWords } from '../mcp/state';
export type { ChangeLog, ChangeRecord } from '../watch/change-log';
export { mergeMarks, overlapsOf } from '../watch/overlaps';
export { entryWords, fileAtCommit, positions, preparedWords, shownEntries } from './queue-words';
export { normalizeGlobs } from '../team/file-ownership';
export { unifiedDiff } from '../watch/line-diff';
export type { TranscriptFollower } from '../watch/transcript-reader';
export type { ItemChange } from '../watch/transcript-items';
export type { WorktreeInfo } from '../worktree/manager';
export { WorktreeError } from '../worktree/errors';
export { describeIgnored } from '../worktree/ignored';
export type { DiffFile, WorktreeDiff } from '../worktree/diff';
export type { MergeResult } from '../worktree/merge';
export type { RemoveResult } from '../worktree/lifecycle';
export type { ReconcileReport } from '../worktree/reconcile';
export { branchStateWords, type BranchState } from '../worktree/branch-state';
export { WorktreeSetupSchema, type WorktreeSetup } from '../worktree/setup-config';
export { readTeamSettings, setTeamSettingsTrusted, type TeamSettings } from '../team/team-settings';
export type { GitEnvOptions } from '../worktree/git';

// ── team words and names ──
export { activityWords, formatTokens, hostLabel, leadUsage, modelWords, providerLacks, spendWords, teamCost, teamTokens, usageTotal } from './team-words';
export { parseSpawn, progressLine, statusMarkdown, tasksMarkdown } from './chat-words';
export { providerOf, type ProviderName } from '../model/provider-id';
export { estimateCost, formatCost } from '../runtime/pricing';
export { assertParticipantName, assertTeammateName, isParticipantName, NAME_RE } from '../util/names';

// ── checks hosts make on typed input ──
export { checkName } from '../worktree/context';

// ── folder trust: what the user trusted, by content (docs/security.md, "Folder trust") ──
export { changeLines, controlFilesOf, fingerprints, hooksUsable, readControlFiles, untrustedChanges, type ControlFile, type ControlFileChange } from '../trust/control-files';
export { respawnInput } from './respawn';
