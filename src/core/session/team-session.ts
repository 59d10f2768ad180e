// The team session: the one object a host (a VS Code window, a CLI process, a test) holds
// over one workspace. It owns the team (one roster, one set of mailboxes, one folder
// watcher per process), every action the user takes, the rules both hosts need
// (team-words.ts; core/worktree/in-use.ts) and, when agents may run here, the agent runner — loaded
// only then, so a host that only shows the team never loads the agent loops or the SDK.
//
// Hosts get views, not parts: `view` (the read models they render: team-view.ts), `onEvent`
// (what agents do), `subscribe`/`watchFiles` (team files changed, from any process) and the
// action table (actions/) for everything the user does. The Team and the AgentRunner stay
// inside (parts.ts: the session's own modules and tests only).
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Member, MergeEntry, RequestRecord, Task } from '../../shared/schemas';
import type { JobInfo } from '../exec/jobs';
import type { ContainerState } from '../container/container-state';
import type { HookSpec } from '../hooks/config';
import type { McpManager, McpServerInfo } from '../mcp/manager';
import type { AgentRunner } from '../runtime/agent-runner';
import type { RunnerOptions } from '../runtime/runner-options';
import { requestPlan as putInPlanMode } from '../roles/plan-mode';
import { EventHub } from '../runtime/event-hub';
import { liveForeignHost } from '../runtime/lease';
import {
  DEFAULT_SETTINGS, type Activity, type Approver, type Disposable, type ModelFactory, type RuntimeEvent,
  type RuntimeSettings, type SpawnInput,
} from '../runtime/types';
import { Team, type TeamChange } from '../team/team';
import type { FileEvent, FileKind } from '../team/team-files';
import type { TaskUpdate } from '../team/task-board';
import { WorktreeManager, type WorktreeManagerOptions } from '../worktree/manager';
import { MergeQueue } from '../merge/merge-queue';
import { hostLabel } from './team-words';
import { describeSandbox, type SandboxReport } from '../sandbox/describe';
import { WorktreeInUseError, worktreeUsers, worktreeViews, type WorktreeView } from '../worktree/in-use';
import { registerParts } from './parts';
import { TeamView } from './team-view';
import { respawnInput } from './respawn';

export interface TeamSessionOptions {
  root: string;
  settings?: Partial<RuntimeSettings>;
  /** This host's id in leases (default: a random one). */
  hostId?: string;
  /** How the worktrees' git runs (the CLI passes its environment and where reports go). */
  worktreeGit?: WorktreeManagerOptions;
  /** The worktrees (tests share one between sessions; default: one over `root`, with `worktreeGit`). */
  worktrees?: WorktreeManager;
}

/**
 * What a host supplies when agents may run here (trusted workspace, a key): the runner's
 * options (runner-options.ts, documented there) less what the session itself owns.
 */
export type AgentOptions = Omit<RunnerOptions, 'team' | 'events' | 'worktrees' | 'mergeQueue' | 'settings' | 'hostId'>;

export class SessionError extends Error {}

export const NOTHING_TO_STOP = 'No agent runs in this window, so there is nothing to stop here.';

export class TeamSession {
  readonly root: string;
  private readonly team: Team;
  /** What the hosts render: snapshots and readers of the team's files (team-view.ts). */
  readonly view: TeamView;
  readonly hostId: string;
  private s: RuntimeSettings;
  private readonly events = new EventHub();
  private current: AgentRunner | null = null;
  private starting: Promise<AgentRunner> | null = null;
  private wm: WorktreeManager | null;
  private mq: MergeQueue | null = null;
  private disposed = false;

  constructor(opts: TeamSessionOptions) {
    this.root = opts.root;
    this.s = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.team = new Team(opts.root, { pollMs: this.s.idlePollSeconds * 1000 });
    this.view = new TeamView(this.team, () => this.worktrees);
    this.hostId = opts.hostId ?? randomUUID();
    this.wm = opts.worktrees ?? (opts.worktreeGit ? new WorktreeManager(opts.root, opts.worktreeGit) : null);
    registerParts(this, () => ({ team: this.team, runner: this.current }));
  }

  /** A session whose agents run here from the start (the CLI's, the tests'). */
  static async start(opts: TeamSessionOptions & { agents: AgentOptions }): Promise<TeamSession> {
    const session = new TeamSession(opts);
    try {
      await session.startAgents(opts.agents);
    } catch (err) {
      await session.dispose();
      throw err;
    }
    return session;
  }

  // ── the agents of this host ──

  /** Agents may run here (startAgents succeeded and stopAgents was not called since). */
  get agentsRunning(): boolean {
    return !!this.current;
  }

  /** Starts running agents here (idempotent): the lead, and the teammates no other host runs. */
  async startAgents(agents: AgentOptions): Promise<void> {
    if (this.disposed) throw new SessionError('the session is closed');
    if (this.current) return;
    this.starting ??= this.startRunner(agents).finally(() => { this.starting = null; });
    await this.starting;
  }

  private async startRunner(agents: AgentOptions): Promise<AgentRunner> {
    // Loaded here, not at the top: the runner brings the agent loops, the tools and the SDK.
    const { AgentRunner: Runner } = require('../runtime/agent-runner') as typeof import('../runtime/agent-runner');
    const runner = await Runner.start({
      // `.mcp.json` edits reach the MCP servers through the team's one change feed.
      ...agents, mcp: { ...agents.mcp, watchConfig: (onChange) => this.watchFiles(['mcp'], onChange) }, team: this.team, events: this.events, worktrees: this.worktrees, settings: this.s, hostId: this.hostId, mergeQueue: this.mergeQueue,
    });
    this.current = runner;
    // The host whose agents run works the merge queue; its test commands die with the host's agents.
    const ask = runner.approver.fileChange;
    this.mergeQueue.start({ processes: runner.processes, sandbox: runner.sandbox, askChange: ask && ((agent, change, signal) => ask.call(runner.approver, agent, change, signal)),
      notify: (level, message, agent) => this.events.emit({ type: 'notice', level, message, ...(agent ? { agent } : {}) }), bringBack: (name, prompt) => this.bringBack(name, prompt) });
    return runner;
  }

  private get mcp(): McpManager {
    return this.need('use MCP servers').mcp;
  }

  /** This host's MCP servers with their states and tools (docs/mcp.md); none before agents run here. */
  mcpServers(): McpServerInfo[] {
    return this.current?.mcp.list() ?? [];
  }

  /** Why `.mcp.json` was not used, once agents run here (null: read, or not yet). */
  mcpConfigRead(): { error?: string } | null {
    return this.current?.mcp.configState ?? null;
  }

  /** An MCP server of this host's agents changed state or tools (agents must run here). */
  onMcpChange(listener: () => void): Disposable {
    return this.mcp.onChange(listener);
  }

  /** The folder's hooks as this host's agents run them (docs/hooks.md); none before they run. */
  hooks(): readonly HookSpec[] {
    return this.current?.hooks.list() ?? [];
  }

  /** Stops this host's agents (their state stays for the next host); the team stays open. */
  async stopAgents(): Promise<void> {
    const runner = this.current ?? (await this.starting?.catch(() => null)) ?? null;
    this.current = null;
    await this.mq?.dispose();
    this.mq = null;
    await runner?.dispose();
  }

  private need(what: string): AgentRunner {
    if (this.current) return this.current;
    throw new SessionError(`Agents do not run here, so the team cannot ${what}.`);
  }

  // ── what agents do, and what changed ──

  /** Events of this host's agents; notices raised while they started are replayed first. */
  onEvent(listener: (e: RuntimeEvent) => void): Disposable {
    return this.events.on(listener);
  }

  /** Team files changed, by this process or another (the team's folders are created). */
  subscribe(onChange: (what: TeamChange) => void): Promise<Disposable> {
    return this.team.subscribe(onChange);
  }

  /**
   * Each change to a file of `kinds` — the team's state, an agent's transcript or change
   * records, the worktrees, `.mcp.json` — from this process or another: the one feed every
   * view follows (core/team/team-files.ts), one OS watch per folder in this process.
   */
  watchFiles(kinds: readonly FileKind[], listener: (e: FileEvent) => void): Promise<Disposable> {
    return this.team.files.on(kinds, listener);
  }

  /** What `agent` is doing here; `stopped` for an agent this host does not run. */
  activity(agent: string): Activity {
    return this.current?.activity(agent) ?? { kind: 'stopped' };
  }

  /** Where `agent`'s container stands, as this host knows it (undefined: not started here; docs/containers.md). */
  containerState(agent: string): ContainerState | undefined {
    return this.current?.containers.state(agent);
  }

  /**
   * Whether a container spawn would pass its checks now (an image, an engine that answers):
   * null, or why not — for a picker to say before the user chooses it.
   */
  async containerProblem(): Promise<string | null> {
    const { ContainerSeats: Seats } = require('../container/seats') as typeof import('../container/seats');
    const seats = new Seats({ root: this.root, teamName: async () => 'check', hostSettings: () => this.s.container, progress: () => undefined, notice: () => undefined });
    try {
      await seats.check();
      return null;
    } catch (e) {
      return (e as Error).message;
    } finally {
      void seats.dispose();
    }
  }

  /** Background commands of this host's agents (all, or `owner`'s), for the views and /jobs. */
  jobs(owner?: string): JobInfo[] {
    return this.current?.jobs.list(owner) ?? [];
  }

  /** The lead's loop is in a turn (it stays so a moment after a turn, checking for mail). */
  leadBusy(): boolean {
    return this.current?.lead.busy ?? false;
  }

  /**
   * Whether the team is at rest here — the lead between turns with no wake due, no teammate
   * working or able to take a task, no merge being tested — and what it left undone (a
   * headless run ends at rest and reports the rest as `blocked`: docs/headless.md).
   */
  rest(): Promise<{ atRest: boolean; left: Array<{ key: string; text: string }> }> {
    return this.current?.rest() ?? Promise.resolve({ atRest: true, left: [] });
  }

  /** Throws when `.team` or `.tasks` is there but not a folder (or a link): not a team to read. */
  checkFolder(): Promise<void> {
    return this.team.checkFolder();
  }

  /** Creates the team's folders (once a command writes), then follows them. */
  async initTeam(): Promise<void> {
    await this.team.init();
  }

  /** A team exists once it has members or the lead has a conversation. */
  async hasTeam(): Promise<boolean> {
    const [members, lead] = await Promise.all([
      this.team.roster.list().catch(() => []),
      stat(this.team.paths.transcript('lead')).then(() => true, () => false),
    ]);
    return members.length > 0 || lead;
  }

  settings(): RuntimeSettings {
    return this.s;
  }

  /** Where this host's commands run and what they may do (docs/security.md; the Team view's row). */
  sandboxReport(): Promise<SandboxReport> {
    return describeSandbox(this.root, this.root, this.s.sandbox, this.s.permissions);
  }

  updateSettings(settings: Partial<RuntimeSettings>): void {
    this.s = { ...this.s, ...settings };
    this.current?.updateSettings(settings);
  }

  /** The key or base URL changed: every agent's next call uses new model clients. */
  refreshModels(): void {
    this.current?.refreshModels();
  }

  // ── the user's actions ──

  askLead(prompt: string): Promise<void> {
    return this.need('ask the lead').askLead(prompt);
  }

  /** Cancels the lead's current turn (the CLI's Ctrl-C). */
  cancelLeadTurn(): void {
    this.current?.cancelLeadTurn();
  }

  /**
   * Take Over Lead: runs the lead here although another live host holds it (its window is
   * gone while its backend still renews the lease). That host stops its lead at its next
   * heartbeat and is fenced out meanwhile: never two leads. Returns the host it was taken
   * from; null when the lead ran here already.
   */
  takeOverLead(): Promise<string | null> {
    return this.need('take the lead over').takeOverLead();
  }

  /** The merge queue's: a shut-down teammate started again (respawn.ts) to fix its branch; false when it is not shut down. */
  private async bringBack(name: string, prompt: string): Promise<boolean> {
    const m = await this.team.roster.get(name).catch(() => undefined);
    if (m?.status !== 'shutdown') return false;
    await this.spawnTeammate(respawnInput(m, prompt), 'team');
    return true;
  }

  spawnTeammate(input: SpawnInput, by = 'user'): Promise<Member> {
    return this.need('spawn a teammate').spawner.spawn(input, by);
  }

  requestShutdown(teammate: string): Promise<RequestRecord> {
    return this.team.requestShutdown('user', teammate);
  }

  /** Force-stops a teammate this host runs (or retires one nobody runs). */
  async stopTeammate(teammate: string): Promise<void> {
    if (!this.current) throw new SessionError(NOTHING_TO_STOP);
    await this.current.stopTeammate(teammate);
  }

  async decidePlan(requestId: string, approve: boolean, feedback = ''): Promise<RequestRecord> {
    const r = await this.team.decidePlan('user', requestId, approve, feedback);
    if (!r.ok) throw new SessionError(r.error);
    return r.record;
  }

  /** Puts a running teammate into plan mode (the lead's request_plan, the Request Plan command). */
  requestPlan(teammate: string, reason?: string | null, by = 'user'): Promise<Member> {
    return putInPlanMode(this.team, by, teammate, reason);
  }

  async createTask(input: { subject: string; description?: string; blockedBy?: number[]; worktree?: string | null; files?: string[] }): Promise<Task> {
    const problem = input.worktree ? await this.worktrees.problemWith(input.worktree) : null;
    if (problem) throw new SessionError(`worktree "${input.worktree}" cannot be used: ${problem}`);
    return this.team.tasks.create(input);
  }

  updateTask(id: number, change: TaskUpdate): Promise<Task> {
    return this.team.tasks.update(id, change);
  }

  // ── worktrees ──

  /** Git worktrees of isolated teammates (diff, merge, keep, remove). */
  get worktrees(): WorktreeManager {
    this.wm ??= new WorktreeManager(this.root);
    return this.wm;
  }

  /** Worktree teammates' branches on their way onto the workspace branch (docs/file-formats.md, "Merge queue"). */
  get mergeQueue(): MergeQueue {
    this.mq ??= new MergeQueue({ team: this.team, worktrees: this.worktrees, hostId: this.hostId, settings: () => this.s });
    return this.mq;
  }

  /**
   * Works the merge queue in this process until entry `id` is merged, failed or cancelled
   * (`agent-teams queue add --wait`), alongside any other host: one entry at a time.
   */
  mergeUntilSettled(id: string): Promise<MergeEntry> {
    return this.mergeQueue.untilSettled(id);
  }

  /** Every worktree with where its branch stands and whether its removal is offered (core/worktree/in-use.ts). */
  worktreeViews(): Promise<WorktreeView[]> {
    return worktreeViews(this.team, this.worktrees);
  }

  /** Teammates that use worktree `name` now (core/worktree/in-use.ts). */
  worktreeUsers(name: string): Promise<string[]> {
    return worktreeUsers(this.team, name, this.worktrees.pathOf(name));
  }

  /** Throws WorktreeInUseError when someone uses worktree `name`; `hint` ends the message. */
  async assertWorktreeFree(name: string, hint = ''): Promise<void> {
    const users = await this.worktreeUsers(name);
    if (users.length) throw new WorktreeInUseError(name, users, hint);
  }

  /**
   * Before a forced removal: the teammates in the checkout stop. One this host runs is
   * stopped; one another live host runs is refused (stop it there); one nobody runs is
   * retired (shut down, its tasks back to pending). Returns who was stopped or retired.
   */
  async vacateWorktree(name: string): Promise<string[]> {
    const users = await this.worktreeUsers(name);
    const members = await Promise.all(users.map((u) => this.team.roster.get(u)));
    const elsewhere = members.filter((m): m is Member => !!m && !!liveForeignHost(m, this.hostId));
    if (elsewhere.length) {
      throw new SessionError(`${elsewhere.map((m) => `${m.name} is run by ${hostLabel(m)}`).join('; ')}: stop ${elsewhere.length === 1 ? 'it' : 'them'} there first, then remove`);
    }
    for (const u of users) {
      if (this.current) await this.current.stopTeammate(u);
      else await this.team.retireMember(u);
    }
    return users;
  }

  // ── the end of this host's session (not of the team) ──
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.stopAgents();
    this.team.dispose();
  }
}
