// The agent runner: the lead and the teammates this host holds leases on, with their model
// clients, usage, budget, compaction and resume; the environment agents call back into
// (AgentEnv). Hosts never hold it: the team session (core/session/team-session.ts) starts it
// when agents may run here and forwards the user's actions to it (loaded only then: esbuild.mjs).
import type { Member } from '../../shared/team-schemas';
import { createHostMcp } from '../mcp/host';
import type { McpManager } from '../mcp/manager';
import type { Disposable } from '../team/dir-watcher';
import { assertTeammateName } from '../util/names';
import type { Agent, AgentEnv, ToolCall } from './agent';
import { Lead } from './lead';
import { LeaseKeeper } from './lease-keeper';
import { teammateSystem } from './prompts';
import { JobManager } from '../exec/jobs';
import { wireJobs } from './job-wakes';
import { compileRules } from '../permissions/decide';
import { whyNotResumable } from './resumable';
import { Teammate } from './teammate';
import { requestPlan as putInPlanMode, PLAN_MODE_START } from '../roles/plan-mode';
import { definitionPrompt, findDefinition, roleFields, toolAllowed } from '../roles/roles';
import { knownModel, unknownModelWarning } from '../roles/models';
import { RuntimeError, type RunnerOptions } from './runner-options';
import { checkSpawn, checkSpawnModel } from './spawn-rules';
import { checkStartTask, claimStartTask, reservedTaskOf } from './spawn-task';
import { RemoteMembers } from './remote-members';
import { watchQuiet } from './quiet-team';
import { RunnerBase } from './runner-base';
import { toolsFor, ToolSet } from './tools';
import { McpToolSets } from './tools/mcp';
import { type Activity, type RuntimeSettings, type SpawnInput, type TeammateProposal } from './types';
import { proposalOf, TeamProposals } from './team-proposal';
import { spawnTeammate as spawnTool } from './tools/team';

export class AgentRunner extends RunnerBase implements AgentEnv {
  readonly jobs = new JobManager(this.processes);
  readonly leases: LeaseKeeper;
  readonly hostId: string;
  /** Another live host runs the lead (its id); null while this host does. */
  private leadRemote: string | null = null;
  private teammates = new Map<string, Teammate>();
  /** Members another live host runs, and those held back by maxTeammates. */
  private readonly proposals = new TeamProposals(() => this.opts.approver);
  private readonly remote = new RemoteMembers((e) => this.emit(e), () => this.s.maxTeammates);
  lead!: Lead;
  private subs: Disposable[] = [];
  private disposed = false;
  readonly mcp: McpManager;
  readonly mcpTools: McpToolSets;

  private constructor(private readonly opts: RunnerOptions) {
    super(opts);
    this.leases = new LeaseKeeper(opts.team.roster, opts.hostId, opts.heartbeatMs);
    this.hostId = opts.hostId;
    // MCP calls are judged by the same rules as bash: the settings' (CLI: --allow, .team/settings.json, "always").
    const { mcp, gate } = createHostMcp(this.root, { rules: () => this.s.permissions, ...opts.mcp }, this.approver, (level, message, mcpServer) => this.emit({ type: 'notice', level, message, ...(mcpServer ? { mcpServer } : {}) }));
    this.mcp = mcp;
    this.mcpTools = new McpToolSets(mcp, gate);
    compileRules(this.s.permissions);
  }

  static async start(opts: RunnerOptions): Promise<AgentRunner> {
    const runner = new AgentRunner(opts);
    await runner.init();
    return runner;
  }

  /** The agents this host runs now: the lead (unless another host runs it) and its teammates. */
  agents(): Agent[] {
    return [...(this.leadRemote ? [] : [this.lead]), ...this.teammates.values()];
  }

  private async init(): Promise<void> {
    await this.team.init();
    await this.killOrphans();
    const teamName = (await this.team.roster.read()).team_name;
    await Promise.all([this.loadDefinitions(), this.loadHooks(teamName)]);
    const lead = new Lead({ name: 'lead', role: 'lead', team: teamName }, this.root, this, new ToolSet(toolsFor('lead')), this.defs.leadPrompt(teamName, this.s.confirmTeam));
    this.lead = lead;
    lead.model = this.opts.models(this.s.model, lead.onModelStatus);
    // One lead per workspace: its conversation is one transcript and its mail one inbox.
    this.leadRemote = await this.leases.claimLead();
    if (!this.leadRemote) await lead.fence(this.hostId);
    await lead.restore();
    this.sessionStart();
    this.subs.push(await this.team.mailbox.subscribe('lead', () => !this.leadRemote && lead.onMail()));
    this.subs.push(await watchQuiet(this.team, () => !this.leadRemote && lead.onQuiet()));
    this.subs.push(...wireJobs(this.jobs, this.team, (e) => this.emit(e)));
    if (this.opts.resume !== false) await this.resumeTeammates();
    this.leases.start(() => this.beat());
    // Mail that arrived while no host ran the lead.
    if (this.leadRemote) this.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host: this.leadRemote } });
    else {
      if (this.opts.resume !== false) lead.resumeTurn();
      lead.onMail();
    }
    this.opts.events.started();
  }

  activity(agent: string): Activity {
    if (agent === 'lead') return this.leadRemote ? { kind: 'remote', host: this.leadRemote } : this.lead.activity;
    const host = this.remote.hostOf(agent);
    if (host && !this.teammates.has(agent)) return { kind: 'remote', host };
    return this.teammates.get(agent)?.activity ?? { kind: 'stopped' };
  }

  updateSettings(settings: Partial<RuntimeSettings>): void {
    const modelChanged = settings.model !== undefined && settings.model !== this.s.model;
    this.s = { ...this.s, ...settings };
    compileRules(this.s.permissions); // malformed rules are reported now, not at the first call
    this.reopenBudget();
    if (modelChanged) this.refreshModels();
  }

  // ── model clients ──
  /**
   * New model clients for every agent this host runs (the key, base URL or model changed):
   * each uses its new one from its next call, and a key rejected before is tried again.
   */
  refreshModels(): void {
    this.lead.model = this.opts.models(this.s.model, this.lead.onModelStatus);
    for (const t of this.teammates.values()) t.model = this.opts.models(t.modelOverride ?? this.s.model, t.onModelStatus);
    this.rejectedKeys.clear();
    for (const t of this.teammates.values()) t.retry();
  }

  // ── leases and resume ──
  /** Teammates being started here (between the lease and the running loop). */
  private starting = new Set<string>();

  /** Every heartbeat (LeaseKeeper: never two at once). */
  private async beat(): Promise<void> {
    // Renew first: after a pause, what this host still holds is settled before anything else.
    await this.renewNow();
    await this.killOrphans();
    await this.adoptLead();
    await this.resumeTeammates();
  }

  private renewing: Promise<void> | null = null;
  /** Renews this host's leases now (one renewal at a time), yielding those another host took. */
  private renewNow(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  /**
   * Before an agent acts (model call, tool call, delivery, transcript write): after a gap in
   * this host's clock (frozen, asleep, starved) the leases are renewed first, and an agent
   * another host took over meanwhile is stopped here instead of acting. See docs/file-formats.md.
   */
  async holdsLease(agent: string): Promise<boolean> {
    if (this.disposed) return false;
    if (this.leases.clock.fresh()) return true;
    await this.renewNow();
    return agent === 'lead' ? !this.leadRemote : this.running(agent);
  }

  /** A write for `agent` was refused by its fence: whatever the roster says, `host` runs it now. */
  fencedOut(agent: string, host: string): void {
    if (agent === 'lead') this.leadTakenBy(host);
    else if (!this.disposed) void this.yieldTo(agent, host);
  }

  /** Another host runs the lead now: stopped here (not "the user stopped this turn": that host carries it on). */
  private leadTakenBy(host: string): void {
    if (this.disposed || this.leadRemote) return;
    this.leadRemote = host;
    this.lead.handOver();
    this.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host } });
    this.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead is now run by another window (host ${host}); stopped here.` });
  }

  private async renewOnce(): Promise<void> {
    const mine = [...this.teammates.keys()];
    const holdLead = !this.leadRemote;
    if (!mine.length && !holdLead) return this.leases.clock.confirm();
    const r = await this.leases.renew(mine, holdLead);
    if (!r) return;
    this.leases.clock.confirm();
    const { lost, leadLostTo } = r;
    for (const { name, host } of lost) await this.yieldTo(name, host);
    if (leadLostTo) this.leadTakenBy(leadLostTo);
  }

  /** The other host that ran the lead went away: run it here, from its transcript as that host left it. */
  private async adoptLead(): Promise<void> {
    if (!this.leadRemote || this.disposed) return;
    const foreign = await this.leases.claimLead().catch(() => this.leadRemote);
    if (foreign) {
      this.leadRemote = foreign;
      return;
    }
    this.leadRemote = null;
    await this.lead.fence(this.hostId);
    await this.lead.restore();
    this.emit({ type: 'activity', agent: 'lead', activity: this.lead.activity });
    this.lead.resumeTurn();
    this.lead.onMail();
  }

  /** Stops running `name` here without touching its record: another host runs it now. */
  private async yieldTo(name: string, host: string): Promise<void> {
    const t = this.teammates.get(name);
    if (!t) return;
    this.teammates.delete(name);
    this.remote.mark(name, host, true);
    t.suspend();
    await this.processes.killAll(name);
    this.emit({ type: 'activity', agent: name, activity: { kind: 'remote', host } });
    this.emit({ type: 'notice', level: 'warning', agent: name, message: `${name} is now run by another window (host ${host}); stopped here.` });
  }

  /**
   * At start and every heartbeat, over the whole roster: teammates other hosts run (spawned
   * there since this one started included) are shown as remote, and those no live host runs
   * (their host went away, or this one just started) are run here.
   */
  private async resumeTeammates(): Promise<void> {
    const members = await this.team.roster.list().catch(() => []);
    const elsewhere = members.filter((m) => m.status !== 'shutdown' && this.leases.foreign(m)).length;
    for (const m of members) {
      // Ours (running, or being set up by a spawn right now) or gone: nothing to take.
      if (this.disposed || m.status === 'shutdown' || this.running(m.name) || m.host?.id === this.hostId) continue;
      const foreign = this.leases.foreign(m);
      if (foreign) {
        this.remote.mark(m.name, foreign);
        continue;
      }
      // No more than maxTeammates run at once (a cloned roster of 1,000 must not start 1,000).
      if (this.teammates.size + this.starting.size + elsewhere >= this.s.maxTeammates) {
        this.remote.holdBack(m.name);
        continue;
      }
      const r = await this.leases.claim(m.name).catch(() => undefined);
      if (!r) continue;
      if ('foreign' in r) {
        this.remote.mark(m.name, r.foreign);
        continue;
      }
      this.remote.forget(m.name);
      // A spawn here may have started it while the claim was under way.
      if (!this.running(m.name)) await this.resume(r.member);
    }
  }

  /**
   * Continues a member's conversation, unless its worktree is not its own or is gone: then it
   * is marked shut down, its tasks go back to pending, and the user is told.
   */
  private async resume(m: Member): Promise<void> {
    const why = await whyNotResumable(m, this.worktrees.pathOf(m.name), this.root);
    if (why) {
      await this.team.retireMember(m.name);
      this.emit({ type: 'notice', level: why.level, agent: m.name, message: why.message });
      return;
    }
    await this.runTeammate(m, null, m.status === 'idle');
  }

  /** Runs here now, or is being started here. */
  private running(name: string): boolean {
    return this.teammates.has(name) || this.starting.has(name);
  }

  private async runTeammate(m: Member, prompt: string | null, resumeIdle: boolean): Promise<Teammate> {
    if (this.running(m.name)) throw new RuntimeError(`${m.name} already runs here`);
    this.starting.add(m.name);
    try {
      return await this.startTeammate(m, prompt, resumeIdle);
    } finally {
      this.starting.delete(m.name);
    }
  }

  private async startTeammate(m: Member, prompt: string | null, resumeIdle: boolean): Promise<Teammate> {
    const teamName = (await this.team.roster.read()).team_name;
    const identity = { name: m.name, role: m.role, team: teamName };
    const cwd = m.worktree ?? this.root;
    const def = this.defs.forMember(m);
    // A tool outside the member's list is not offered at all (the list is in the roster, so a reload keeps it).
    const tools = new ToolSet(toolsFor('teammate', m.tools).filter((t) => toolAllowed(t.name, m.tools)));
    const t = new Teammate(identity, cwd, this, tools, teammateSystem(identity, cwd, this.s.planApproval, m.branch) + definitionPrompt(def));
    t.modelOverride = m.model;
    t.allowedTools = m.tools ?? null;
    t.preparation = this.preparationFor(t);
    // The lease is already ours: taken by claim() on resume, written with the spawn.
    t.model = this.opts.models(m.model ?? this.s.model, t.onModelStatus);
    await t.fence(this.hostId);
    await t.restore();
    this.teammates.set(m.name, t);
    t.start(prompt, resumeIdle);
    void t.done.then(() => {
      if (this.teammates.get(m.name) === t) this.teammates.delete(m.name);
    });
    return t;
  }

  // ── operations (tools, and the user's through the session) ──
  async spawnTeammate(input: SpawnInput, by = 'user'): Promise<Member> {
    if (this.disposed) throw new RuntimeError('the runtime is shut down');
    const name = assertTeammateName(input.name);
    await checkSpawn(this.team, name, { foreign: (m) => this.leases.foreign(m), runsHere: this.running(name), maxTeammates: this.s.maxTeammates });
    const def = input.agent_type ? findDefinition(await this.loadDefinitions(), input.agent_type) : undefined;
    // Plan mode, model and tools go into the same roster write as the spawn: in force before the first model call.
    const role = roleFields(input, def, this.s, by);
    await checkSpawnModel(this.opts.models, role.model ?? this.s.model, name);
    if (input.task) await checkStartTask(this.team, name, input.task);
    if (by === 'lead' && this.s.confirmTeam) await this.proposals.check(proposalOf(name, input, def, role, this.s.model), this.lead);
    const wt = input.isolation === 'worktree' ? await this.openWorktree(name) : null;
    const member = await this.team.spawnMember(name, input.role || def?.name || 'teammate', {
      ...role,
      worktree: wt?.workdir ?? null, branch: wt?.branch ?? null, current_task: null, host: this.leases.lease(),
    });
    this.emit({ type: 'notice', level: 'info', agent: name, message: `${by} spawned ${name} (${member.role}${member.model ? `, ${member.model}` : ''}${member.plan_mode ? ', plan mode' : ''}).` });
    if (member.model && !knownModel(member.model)) this.emit({ type: 'notice', level: 'warning', agent: name, message: `${name}: ${unknownModelWarning(member.model)}.` });
    const start = await claimStartTask(this.team, name, input.task ?? await reservedTaskOf(this.team, name), (w) => this.worktreeDir(w));
    await this.runTeammate(member, `${member.plan_mode ? `${PLAN_MODE_START}\n\n` : ''}${start}${input.prompt}`, false);
    return member;
  }

  async askLead(prompt: string): Promise<void> {
    if (this.disposed) throw new RuntimeError('the runtime is shut down');
    // Definitions added or changed since: the lead sees them from this turn (not mid-turn, for the cache).
    // Only between turns: the lead merely reading its mail is not in one.
    if (!this.lead.inTurn) {
      await this.loadDefinitions();
      this.lead.system = this.defs.leadPrompt((await this.team.roster.read()).team_name, this.s.confirmTeam);
    }
    if (this.leadRemote) {
      // Nothing lost: the lead that runs elsewhere reads it as mail from the user.
      await this.team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: prompt });
      this.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead runs in another window (host ${this.leadRemote}): your words went to its inbox, and it answers there.` });
      return;
    }
    await this.lead.ask(await this.promptThroughHooks(prompt));
  }

  /** Cancels the lead's current turn (the CLI's Ctrl-C). */
  cancelLeadTurn(): void {
    this.lead.cancelTurn();
  }

  async stopTeammate(teammate: string): Promise<void> {
    const t = this.teammates.get(teammate);
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

  /** agentTeams.confirmTeam: the spawns of one lead reply are asked about as one team (team-proposal.ts). */
  async beforeToolCalls(agent: Agent, calls: readonly ToolCall[]): Promise<void> {
    if (agent !== this.lead || !this.s.confirmTeam) return;
    const team: TeammateProposal[] = [];
    const defs = calls.some((c) => c.name === 'spawn_teammate') ? await this.loadDefinitions() : null;
    for (const c of calls) {
      const p = c.name === 'spawn_teammate' ? spawnTool.parse(c.input) : null;
      if (!p?.ok || !defs) continue;
      const input = p.data as SpawnInput;
      try {
        const def = input.agent_type ? findDefinition(defs, input.agent_type) : undefined;
        team.push(proposalOf(assertTeammateName(input.name), input, def, roleFields(input, def, this.s, 'lead'), this.s.model));
      } catch { /* left out: its own spawn reports why */ }
    }
    await this.proposals.gather(team, this.lead);
  }

  /** Puts a running teammate into plan mode (the lead's request_plan). */
  requestPlan(teammate: string, reason?: string | null, by = 'lead'): Promise<Member> {
    return putInPlanMode(this.team, by, teammate, reason);
  }

  protected agentNamed(name: string): Agent | undefined {
    return name === 'lead' ? this.lead : this.teammates.get(name);
  }

  // ── shutdown of the host (not of the team) ──
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.leases.stop();
    for (const s of this.subs) s.dispose();
    this.lead.stop();
    const running = [...this.teammates.values()];
    // Leave the roster status as it is (working/idle) so the next host resumes them,
    // but give up the lease so it need not wait for it to go stale.
    for (const t of running) t.suspend();
    await Promise.all([this.processes.killEverything(), this.mcp.dispose()]);
    await this.sandbox.dispose();
    await Promise.all(running.map((t) => t.done));
    await this.leases.release();
  }
}
