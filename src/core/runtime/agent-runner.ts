// The agent runner: the lead and the teammates this host holds leases on, their model
// clients, leases and resume. What agents and tools call back into is not the runner but
// small services it builds and hands them in one AgentEnv (agent-env.ts): usage and budget
// (usage-budget.ts), compaction (compactor.ts), rejected keys (key-state.ts), the spawner
// (spawner.ts), worktree folders and file tools (workdirs.ts), hooks (runner-hooks.ts),
// definitions (runner-definitions.ts), jobs, the sandbox and MCP. Hosts never hold it: the
// team session (core/session/team-session.ts) starts it when agents may run here and
// forwards the user's actions to it (loaded only then: esbuild.mjs).
import type { Member } from '../../shared/schemas';
import { ProcessLedger, sweepOrphans } from '../exec/process-ledger';
import { ProcessRegistry } from '../exec/process-group';
import { createHostMcp } from '../mcp/host';
import type { McpManager } from '../mcp/manager';
import type { MergeQueue } from '../merge/merge-queue';
import type { Disposable } from '../team/dir-watcher';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import { CommandSandbox } from '../sandbox/sandbox';
import { ContainerSeats } from '../container/seats';
import type { Hooks } from '../hooks/hooks';
import type { Agent } from './agent';
import type { AgentEnv } from './agent-env';
import { Compactor } from './compactor';
import { RejectedKeys } from './key-state';
import { Lead } from './lead';
import { LeaseKeeper } from './lease-keeper';
import { teammateSystem } from './prompts';
import { JobManager } from '../exec/jobs';
import { wireJobs } from './job-wakes';
import { compileRules } from '../permissions/decide';
import { Teammate } from './teammate';
import { definitionPrompt, toolAllowed } from '../roles/roles';
import { RunnerDefinitions } from './runner-definitions';
import { RunnerHooks } from './runner-hooks';
import { RuntimeError, type RunnerOptions } from './runner-options';
import { watchQuiet, type QuietWatch, type TeamRest } from './quiet-team';
import { worktreeTidier } from './worktree-tidy';
import { Spawner } from './spawner';
import { Tenancy } from './tenancy';
import { toolsFor, ToolSet } from './tools';
import { McpToolSets } from './tools/mcp';
import type { Activity, Approver, RuntimeEvent, RuntimeSettings } from './types';
import { UsageBudget } from './usage-budget';
import { AgentWorkdirs, recordingFs } from './workdirs';

export class AgentRunner {
  readonly team: Team;
  readonly root: string;
  readonly processes: ProcessRegistry;
  readonly worktrees: WorktreeManager;
  readonly mergeQueue: MergeQueue;
  /** The host's approver, telling the Notification hooks first (runner-hooks.ts). */
  readonly approver: Approver;
  /** Where every command of every agent runs (docs/security.md). */
  readonly sandbox: CommandSandbox;
  readonly jobs: JobManager;
  /** Teammates in containers (docs/containers.md). */
  readonly containers: ContainerSeats;
  readonly leases: LeaseKeeper;
  readonly hostId: string;
  readonly mcp: McpManager;
  readonly mcpTools: McpToolSets;
  // ── the services agents and tools use (agent-env.ts) ──
  readonly budget: UsageBudget;
  readonly spawner: Spawner;
  private readonly compactor: Compactor;
  private readonly keys = new RejectedKeys();
  private readonly workdirs: AgentWorkdirs;
  private readonly runnerHooks: RunnerHooks;
  private readonly defs: RunnerDefinitions;
  /** What every agent of this runner is given. */
  private readonly env: AgentEnv;
  private s: RuntimeSettings;
  /** Which agents this host runs, by lease (tenancy.ts). */
  private readonly tenancy: Tenancy;
  lead!: Lead;
  private quiet: QuietWatch | null = null;
  private subs: Disposable[] = [];
  private disposed = false;

  private constructor(private readonly opts: RunnerOptions) {
    const team = (this.team = opts.team);
    this.root = team.root;
    this.hostId = opts.hostId;
    this.s = { ...opts.settings };
    const emit = (e: RuntimeEvent) => this.emit(e);
    const settings = () => this.s;
    const agentNamed = (name: string) => this.agentNamed(name);
    // Each group is written down while it runs, for the host that outlives this one.
    this.processes = new ProcessRegistry(new ProcessLedger(team.paths.processesDir, opts.hostId));
    this.jobs = new JobManager(this.processes);
    this.worktrees = opts.worktrees;
    this.mergeQueue = opts.mergeQueue;
    this.defs = new RunnerDefinitions(this.root, () => this.s.model, emit);
    this.runnerHooks = new RunnerHooks({
      team, hostId: opts.hostId, trusted: opts.hooks?.trusted ?? true, approver: opts.approver, emit, agentNamed,
      // A hook's command runs in the sandbox of the agent its event is about (docs/hooks.md).
      plan: (agent, cwd, command) => this.sandbox.launch(agent, cwd, command),
    });
    // Every question to the user tells the Notification hooks first (docs/hooks.md).
    this.approver = this.runnerHooks.approver;
    const approver = opts.approver;
    this.sandbox = new CommandSandbox({
      root: this.root, enginePath: opts.sandboxPath,
      settings: () => this.s.sandbox, rules: () => this.s.permissions,
      askNetwork: approver.network ? (agent, host, signal) => approver.network!(agent, host, signal) : undefined,
      notice: (level, message, agent) => this.emit({ type: 'notice', level, message, ...(agent ? { agent } : {}) }),
    });
    this.containers = new ContainerSeats({
      root: this.root, teamName: async () => (await team.roster.read()).team_name, hostSettings: () => this.s.container,
      progress: (agent, line) => this.agentNamed(agent)?.setActivity({ kind: 'tool', tool: `container: ${line.slice(0, 120)}` }),
      notice: (agent, message) => this.emit({ type: 'notice', level: 'error', agent, message }),
      changed: (agent, container) => this.emit({ type: 'container', agent, container }),
      // Its commands reach hosts only through the proxy, judged as a sandboxed command's are.
      network: (agent) => (host, port) => this.sandbox.allowHost(agent, host, port),
    });
    this.budget = new UsageBudget({
      team, emit, budget: () => this.s.tokenBudget, raiseBudget: opts.raiseBudget,
      pause: (agent) => this.agentNamed(agent)?.setActivity({ kind: 'paused', reason: 'token budget spent' }),
    });
    this.compactor = new Compactor({ team, emit, compactAtTokens: () => this.s.compactAtTokens, recordUsage: (agent, r) => this.budget.record(agent, r) });
    this.workdirs = new AgentWorkdirs({ team, worktrees: this.worktrees, processes: this.processes, sandbox: this.sandbox, emit, hostSetup: () => this.s.worktreeSetup, agentNamed });
    this.leases = new LeaseKeeper(team.roster, opts.hostId, opts.heartbeatMs);
    this.leases.leadModel = () => this.s.model;
    this.tenancy = new Tenancy({
      team, keeper: this.leases, processes: this.processes, worktrees: this.worktrees, emit, settings,
      lead: () => this.lead, make: (m) => this.makeTeammate(m), killOrphans: () => this.killOrphans(), disposed: () => this.disposed,
    });
    this.spawner = new Spawner({
      team, settings, emit, models: opts.models, approver: opts.approver, defs: this.defs, leases: this.leases, workdirs: this.workdirs, containers: this.containers,
      lead: () => this.lead, runsHere: (name) => this.tenancy.running(name), run: (m, prompt) => this.tenancy.run(m, prompt, false), disposed: () => this.disposed,
    });
    // MCP calls are judged by the same rules as bash: the settings' (CLI: --allow, .team/settings.json, "always").
    const { mcp, gate } = createHostMcp(this.root, { rules: () => this.s.permissions, ...opts.mcp }, this.approver, (level, message, mcpServer) => this.emit({ type: 'notice', level, message, ...(mcpServer ? { mcpServer } : {}) }));
    this.mcp = mcp;
    this.mcpTools = new McpToolSets(mcp, gate);
    const recording = recordingFs(team);
    this.env = {
      team, settings, emit, approver: this.approver, hooks: this.hooks, processes: this.processes, jobs: this.jobs, sandbox: this.sandbox, containers: this.containers,
      spawner: this.spawner, leadBusy: () => this.leadBusy(), workdirs: this.workdirs, worktrees: this.worktrees, mergeQueue: this.mergeQueue,
      budget: this.budget, compaction: this.compactor, keys: this.keys, mcp, mcpTools: this.mcpTools,
      workspaceFs: (agent, dir) => (this.containers.has(agent) ? this.containers.fs(agent) : recording(agent, dir)),
      leases: this.tenancy,
    };
    compileRules(this.s.permissions);
  }

  static async start(opts: RunnerOptions): Promise<AgentRunner> {
    const runner = new AgentRunner(opts);
    await runner.init();
    return runner;
  }

  /** The folder's hooks (docs/hooks.md), loaded when the runner starts. */
  get hooks(): Hooks {
    return this.runnerHooks.hooks;
  }

  emit(e: RuntimeEvent): void {
    this.opts.events.emit(e);
  }

  settings(): RuntimeSettings {
    return this.s;
  }

  /** Whether the lead is in a turn here now (send_message's answer to a teammate). */
  leadBusy(): boolean {
    const lead = this.agentNamed('lead');
    return lead !== undefined && 'busy' in lead && lead.busy === true;
  }

  /** Whether nothing is in flight — the lead between turns, the team quiet, the queue idle, no wake due — and what is left (quiet-team.ts). */
  rest(): Promise<TeamRest> {
    return this.quiet?.rest() ?? Promise.resolve({ atRest: false, left: [] });
  }

  /**
   * Kills what hosts that went away (killed with -9, crashed) left running for their agents,
   * before this host takes those agents over (docs/file-formats.md, "Process records").
   */
  private async killOrphans(): Promise<void> {
    const killed = await sweepOrphans(this.team.paths.processesDir).catch(() => []);
    for (const k of killed) {
      const what = k.kind === 'job' ? 'background job' : 'command';
      this.emit({ type: 'notice', level: 'info', agent: k.agent, message: `Stopped the ${what} \`${k.command}\` that ${k.agent} started on a host that went away.` });
    }
  }

  /** The agents this host runs now: the lead (unless another host runs it) and its teammates. */
  agents(): Agent[] {
    const { leadRemote, teammates } = this.tenancy;
    return [...(leadRemote ? [] : [this.lead]), ...teammates.values()];
  }

  private async init(): Promise<void> {
    await this.team.init();
    await this.killOrphans();
    const teamName = (await this.team.roster.read()).team_name;
    await Promise.all([this.defs.load(), this.runnerHooks.load(teamName)]);
    const lead = new Lead({ name: 'lead', role: 'lead', team: teamName }, this.root, this.env, new ToolSet(toolsFor('lead')), this.defs.leadPrompt(teamName, this.s.confirmTeam));
    this.lead = lead;
    lead.model = this.opts.models(this.s.model, lead.onModelStatus);
    const here = this.tenancy;
    await here.claimLead();
    if (!here.leadRemote) await lead.fence(this.hostId);
    await lead.restore();
    this.runnerHooks.sessionStart();
    this.subs.push(await this.team.mailbox.subscribe('lead', () => !here.leadRemote && lead.onMail()));
    const tidy = worktreeTidier({ team: this.team, worktrees: this.worktrees, queue: () => this.mergeQueue.list(), emit: (e) => this.emit(e) });
    this.quiet = await watchQuiet({
      team: this.team, queue: () => this.mergeQueue.list(), leadBusy: () => here.leadRemote !== null || lead.busy,
      wake: (note, left) => !here.leadRemote && lead.onQuiet(note, left > 0),
      // The lead's own jobs keep nobody busy (it hears when one ends), but for a foreground
      // command handed over at the time limit: the lead was waiting for its result.
      jobsBusy: () => this.jobs.waitedFor((owner, j) => owner !== 'lead' || !!j.handedOver),
      tidy, tidyBusy: () => tidy.busy(),
    });
    lead.onRest = () => this.quiet?.recheck();
    this.subs.push(this.quiet);
    this.subs.push(...wireJobs(this.jobs, this.team, (e) => this.emit(e)));
    if (this.opts.resume !== false) await here.resumeTeammates();
    this.leases.start(() => here.beat());
    // Mail that arrived while no host ran the lead.
    if (here.leadRemote) this.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host: here.leadRemote } });
    else {
      if (this.opts.resume !== false) lead.resumeTurn();
      lead.onMail();
    }
    this.opts.events.started();
  }

  activity(agent: string): Activity {
    const { leadRemote, teammates, remote } = this.tenancy;
    if (agent === 'lead') return leadRemote ? { kind: 'remote', host: leadRemote } : this.lead.activity;
    const host = remote.hostOf(agent);
    if (host && !teammates.has(agent)) return { kind: 'remote', host };
    return teammates.get(agent)?.activity ?? { kind: 'stopped' };
  }

  updateSettings(settings: Partial<RuntimeSettings>): void {
    const modelChanged = settings.model !== undefined && settings.model !== this.s.model;
    this.s = { ...this.s, ...settings };
    compileRules(this.s.permissions); // malformed rules are reported now, not at the first call
    this.budget.reopen();
    if (modelChanged) this.refreshModels();
  }

  // ── model clients ──
  /**
   * New model clients for every agent this host runs (the key, base URL or model changed):
   * each uses its new one from its next call, and a key rejected before is tried again.
   */
  refreshModels(): void {
    this.lead.model = this.opts.models(this.s.model, this.lead.onModelStatus);
    const teammates = [...this.tenancy.teammates.values()];
    for (const t of teammates) t.model = this.opts.models(t.modelOverride ?? this.s.model, t.onModelStatus);
    this.keys.clear();
    for (const t of teammates) t.retry();
  }

  /** A teammate for `m`, fenced and restored; Tenancy.run starts it. */
  private async makeTeammate(m: Member): Promise<Teammate> {
    const teamName = (await this.team.roster.read()).team_name;
    const identity = { name: m.name, role: m.role, team: teamName };
    const cwd = m.worktree ?? this.root;
    // Seated before it is made: its file tools are made with it (agent.ts), in its container.
    if (m.container) this.containers.seat(m.name);
    const def = this.defs.forMember(m);
    // A tool outside the member's list is not offered at all (the list is in the roster, so a reload keeps it).
    const tools = new ToolSet(toolsFor('teammate', m.tools).filter((t) => toolAllowed(t.name, m.tools)));
    const t = new Teammate(identity, cwd, this.env, tools, teammateSystem(identity, m.container ? '/workspace, in a container of your own' : cwd, this.s.planApproval, m.branch, !!m.container) + definitionPrompt(def));
    t.modelOverride = m.model;
    t.allowedTools = m.tools ?? null;
    t.preparation = m.container ? () => this.containers.prepare(m.name) : this.workdirs.preparationFor(t);
    // The lease is already ours: taken by claim() on resume, written with the spawn.
    t.model = this.opts.models(m.model ?? this.s.model, t.onModelStatus);
    await t.fence(this.hostId);
    await t.restore();
    return t;
  }

  // ── operations (the user's, through the session; spawns: spawner.ts) ──
  async askLead(prompt: string): Promise<void> {
    if (this.disposed) throw new RuntimeError('the runtime is shut down');
    // Definitions added or changed since: the lead sees them from this turn (not mid-turn, for the cache).
    // Only between turns: the lead merely reading its mail is not in one.
    if (!this.lead.inTurn) {
      await this.defs.load();
      this.lead.system = this.defs.leadPrompt((await this.team.roster.read()).team_name, this.s.confirmTeam);
    }
    await this.tenancy.leadArrived();
    const leadRemote = this.tenancy.leadRemote;
    if (leadRemote) {
      // Nothing lost: the lead that runs elsewhere reads it as mail from the user.
      await this.team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: prompt });
      this.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead runs in another window (host ${leadRemote}): your words went to its inbox, and it answers there.` });
      return;
    }
    await this.lead.ask(await this.runnerHooks.prompt(prompt));
  }

  /** Cancels the lead's current turn (the CLI's Ctrl-C). */
  cancelLeadTurn(): void {
    this.lead.cancelTurn();
  }

  /** Take Over Lead (tenancy.ts): the lead runs here from now; returns the host it was taken from. */
  takeOverLead(): Promise<string | null> {
    if (this.disposed) return Promise.reject(new RuntimeError('the runtime is shut down'));
    return this.tenancy.takeOverLead();
  }

  async stopTeammate(teammate: string): Promise<void> {
    const t = this.tenancy.teammates.get(teammate);
    if (!t) {
      const m = await this.team.roster.get(teammate);
      if (!m) throw new RuntimeError(`unknown teammate "${teammate}"`);
      const foreign = this.leases.foreign(m);
      if (foreign) throw new RuntimeError(`${teammate} is run by another window (host ${foreign})`);
      await this.team.retireMember(teammate);
      return;
    }
    t.stop();
    await this.processes.killAll(teammate);
    await t.done;
  }

  /** The agent called `name` that runs here. */
  private agentNamed(name: string): Agent | undefined {
    return name === 'lead' ? this.lead : this.tenancy.teammates.get(name);
  }

  // ── shutdown of the host (not of the team) ──
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.leases.stop();
    for (const s of this.subs) s.dispose();
    this.lead.stop();
    const running = [...this.tenancy.teammates.values()];
    // Leave the roster status as it is (working/idle) so the next host resumes them,
    // but give up the lease so it need not wait for it to go stale.
    for (const t of running) t.suspend();
    await Promise.all([this.processes.killEverything(), this.mcp.dispose()]);
    await this.sandbox.dispose();
    await Promise.all(running.map((t) => t.done));
    // The containers go on running, to be reattached by the next host (docs/containers.md).
    await this.containers.dispose();
    await this.leases.release();
  }
}
