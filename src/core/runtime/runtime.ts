// The runtime: one host's agents over one workspace. It owns the lead and the teammates it
// runs, their model clients, usage and budget, leases and resume. It implements
// TeamRuntime for the VS Code layer and the CLI.
import { randomUUID } from 'node:crypto';
import type { Member, Message, RequestRecord, Task } from '../../shared/team-schemas';
import { ProcessRegistry } from '../exec/process-group';
import { createHostMcp, type McpHostOptions } from '../mcp/host';
import type { McpManager } from '../mcp/manager';
import type { ModelMessage, SendResult } from '../model';
import { Team } from '../team/team';
import type { Disposable } from '../team/dir-watcher';
import { assertTeammateName } from '../util/names';
import { WorktreeManager } from '../worktree/manager';
import type { Agent, AgentEnv } from './agent';
import { BudgetGate } from './budget-gate';
import { EventHub } from './event-hub';
import { compact, estimateTokens } from './compaction';
import { maxMessageChars } from './context-cut';
import { Lead } from './lead';
import {
  claimLeadLease, claimMember, HEARTBEAT_MS, LeaseClock, liveForeignHost, makeLease, releaseLeases, renewLeases, type Claim,
} from './lease';
import { leadSystem, teammateSystem } from './prompts';
import { JobManager } from '../exec/jobs';
import { wireJobs } from './job-wakes';
import { compileRules } from '../permissions/decide';
import { whyNotResumable } from './resumable';
import { Teammate } from './teammate';
import { definitionsForLead, type Definitions } from '../roles/agent-definitions';
import { requestPlan as putInPlanMode, PLAN_MODE_START } from '../roles/plan-mode';
import {
  definitionPrompt, findDefinition, loadTeamDefinitions, roleFields, toolAllowed,
} from '../roles/roles';
import { toolsFor, ToolSet } from './tools';
import { McpToolSets } from './tools/mcp';
import {
  DEFAULT_SETTINGS, type Activity, type Approver, type ModelFactory, type RuntimeEvent,
  type RuntimeSettings, type SpawnInput, type TeamRuntime, type TeammateProposal, proposalText,
} from './types';
import { recordUsage, teamTotal } from './usage';

export interface RuntimeOptions {
  root: string;
  settings?: Partial<RuntimeSettings>;
  models: ModelFactory;
  approver: Approver;
  hostId?: string;
  heartbeatMs?: number;
  /** Resume teammates found working/idle in the roster (default true). */
  resume?: boolean;
  /** Git worktrees for isolated teammates (default: one over `root`). */
  worktrees?: WorktreeManager;
  /** How this host's user raises a spent token budget (default: the VS Code setting). */
  raiseBudget?: string;
  /** MCP servers from `.mcp.json` (docs/mcp.md). */
  mcp?: McpHostOptions;
}

export class RuntimeError extends Error {}

export class Runtime implements TeamRuntime, AgentEnv {
  readonly team: Team;
  readonly processes = new ProcessRegistry();
  readonly jobs = new JobManager(this.processes);
  readonly hostId: string;
  private s: RuntimeSettings;
  private readonly events = new EventHub();
  /** Another live host runs the lead (its id); null while this host does. */
  private leadRemote: string | null = null;
  private teammates = new Map<string, Teammate>();
  /** Members another live host runs, by name → host id. */
  private remote = new Map<string, string>();
  lead!: Lead;
  private subs: Disposable[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly leaseClock: LeaseClock;
  private readonly budget = new BudgetGate(
    async () => teamTotal(await this.team.roster.read()),
    (budget) => this.emit({
      type: 'notice', level: 'warning',
      message: `Token budget of ${budget} spent: the team is paused. ${this.opts.raiseBudget ?? 'Raise agentTeams.tokenBudget to continue.'}`,
    }),
  );
  private disposed = false;
  readonly mcp: McpManager;
  readonly mcpTools: McpToolSets;

  private constructor(private readonly opts: RuntimeOptions) {
    this.team = new Team(opts.root, { pollMs: (opts.settings?.idlePollSeconds ?? DEFAULT_SETTINGS.idlePollSeconds) * 1000 });
    this.hostId = opts.hostId ?? randomUUID();
    this.leaseClock = new LeaseClock(opts.heartbeatMs ?? HEARTBEAT_MS);
    this.s = { ...DEFAULT_SETTINGS, ...opts.settings };
    const { mcp, gate } = createHostMcp(opts.root, opts.mcp, opts.approver, (level, message, mcpServer) => this.emit({ type: 'notice', level, message, ...(mcpServer ? { mcpServer } : {}) }));
    this.mcp = mcp;
    this.mcpTools = new McpToolSets(mcp, gate);
    compileRules(this.s.permissions);
  }

  static async start(opts: RuntimeOptions): Promise<Runtime> {
    const rt = new Runtime(opts);
    await rt.init();
    return rt;
  }

  get root(): string {
    return this.opts.root;
  }

  private async init(): Promise<void> {
    await this.team.init();
    const teamName = (await this.team.roster.read()).team_name;
    await this.loadDefinitions();
    const lead = new Lead({ name: 'lead', role: 'lead', team: teamName }, this.root, this, new ToolSet(toolsFor('lead')), this.leadPrompt(teamName));
    this.lead = lead;
    lead.model = this.opts.models(this.s.model, lead.onModelStatus);
    // One lead per workspace: its conversation is one transcript and its mail one inbox.
    this.leadRemote = await this.claimLead();
    await lead.restore();
    this.subs.push(await this.team.mailbox.subscribe('lead', () => {
      if (!this.leadRemote) lead.onMail();
    }));
    this.subs.push(...wireJobs(this.jobs, this.team, (e) => this.emit(e)));
    if (this.opts.resume !== false) await this.resumeTeammates();
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    // Mail that arrived while no host ran the lead.
    if (this.leadRemote) this.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host: this.leadRemote } });
    else {
      if (this.opts.resume !== false) lead.resumeTurn();
      lead.onMail();
    }
    this.events.started();
  }

  // ── agent definitions ──
  private defs: Definitions = { definitions: [], problems: [] };
  private reported = new Set<string>();

  /** Agent definitions as last read (.team/agents, .claude/agents). */
  get definitions(): Definitions {
    return this.defs;
  }

  /** Re-reads the definitions; a problem is reported once per file and message. */
  async loadDefinitions(): Promise<Definitions> {
    this.defs = await loadTeamDefinitions(this.root, this.s.model);
    for (const p of this.defs.problems) {
      const key = `${p.path}\n${p.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.emit({ type: 'notice', level: 'warning', message: `Agent definition ${p.path}: ${p.message}` });
    }
    return this.defs;
  }

  /** The lead's system prompt: byte-identical while the definitions stay the same. */
  private leadPrompt(teamName: string): string {
    const defs = definitionsForLead(this.defs.definitions);
    return defs ? `${leadSystem(teamName, this.root)}\n${defs}` : leadSystem(teamName, this.root);
  }

  // ── events ──
  /** Subscribes to events; notices raised while the runtime started are replayed first. */
  onEvent(listener: (e: RuntimeEvent) => void): Disposable {
    return this.events.on(listener);
  }

  emit(e: RuntimeEvent): void {
    this.events.emit(e);
  }

  activity(agent: string): Activity {
    if (agent === 'lead') return this.leadRemote ? { kind: 'remote', host: this.leadRemote } : this.lead.activity;
    const host = this.remote.get(agent);
    if (host && !this.teammates.has(agent)) return { kind: 'remote', host };
    return this.teammates.get(agent)?.activity ?? { kind: 'stopped' };
  }

  settings(): RuntimeSettings {
    return this.s;
  }

  get approver(): Approver {
    return this.opts.approver;
  }

  updateSettings(settings: Partial<RuntimeSettings>): void {
    const modelChanged = settings.model !== undefined && settings.model !== this.s.model;
    this.s = { ...this.s, ...settings };
    compileRules(this.s.permissions); // malformed rules are reported now, not at the first call
    this.budget.reopen();
    if (modelChanged) this.refreshModels();
  }

  // ── model clients ──
  private rejectedKey = false;

  keyRejected(): boolean {
    return this.rejectedKey;
  }

  noteKeyRejected(): void {
    this.rejectedKey = true;
  }

  /**
   * New model clients for every agent this host runs (the key, base URL or model changed):
   * each uses its new one from its next call, and a key rejected before is tried again.
   */
  refreshModels(): void {
    this.lead.model = this.opts.models(this.s.model, this.lead.onModelStatus);
    for (const t of this.teammates.values()) t.model = this.opts.models(t.modelOverride ?? this.s.model, t.onModelStatus);
    this.rejectedKey = false;
    for (const t of this.teammates.values()) t.retry();
  }

  // ── leases and resume ──
  /** A heartbeat under way: a slow one (a contended roster lock) must not overlap the next. */
  private beating = false;
  /** Teammates being started here (between the lease and the running loop). */
  private starting = new Set<string>();

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      await this.beatOnce();
    } finally {
      this.beating = false;
    }
  }

  private async beatOnce(): Promise<void> {
    // Renew first: after a pause, what this host still holds is settled before anything else.
    await this.renewNow();
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
    if (this.leaseClock.fresh()) return true;
    await this.renewNow();
    return agent === 'lead' ? !this.leadRemote : this.running(agent);
  }

  private async renewOnce(): Promise<void> {
    const mine = [...this.teammates.keys()];
    const holdLead = !this.leadRemote;
    if (!mine.length && !holdLead) return this.leaseClock.confirm();
    const r = await this.team.roster.update((c) => renewLeases(c, this.hostId, mine, holdLead)).catch(() => undefined);
    if (!r) return;
    this.leaseClock.confirm();
    const { lost, leadLostTo } = r;
    for (const { name, host } of lost) await this.yieldTo(name, host);
    if (leadLostTo && !this.disposed) {
      this.leadRemote = leadLostTo;
      // Not "the user stopped this turn": the other host carries the conversation on.
      this.lead.handOver();
      this.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host: leadLostTo } });
      this.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead is now run by another window (host ${leadLostTo}); stopped here.` });
    }
  }

  private claimLead(): Promise<string | null> {
    return this.team.roster.update((c) => claimLeadLease(c, this.hostId, this.opts.heartbeatMs));
  }

  /** The other host that ran the lead went away: run it here, from its transcript as that host left it. */
  private async adoptLead(): Promise<void> {
    if (!this.leadRemote || this.disposed) return;
    const foreign = await this.claimLead().catch(() => this.leadRemote);
    if (foreign) {
      this.leadRemote = foreign;
      return;
    }
    this.leadRemote = null;
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
    this.remote.set(name, host);
    t.suspend();
    await this.processes.killAll(name);
    this.emit({ type: 'activity', agent: name, activity: { kind: 'remote', host } });
    this.emit({ type: 'notice', level: 'warning', agent: name, message: `${name} is now run by another window (host ${host}); stopped here.` });
  }

  /** Takes `name`'s lease in one locked roster update, so two hosts starting together never both run it. */
  private claim(name: string): Promise<Claim> {
    return this.team.roster.update((c) => claimMember(c, name, this.hostId, this.opts.heartbeatMs));
  }

  /**
   * At start and every heartbeat, over the whole roster: teammates other hosts run (spawned
   * there since this one started included) are shown as remote, and those no live host runs
   * (their host went away, or this one just started) are run here.
   */
  private async resumeTeammates(): Promise<void> {
    const members = await this.team.roster.list().catch(() => []);
    const elsewhere = members.filter((m) => m.status !== 'shutdown' && liveForeignHost(m, this.hostId, this.opts.heartbeatMs)).length;
    for (const m of members) {
      // Ours (running, or being set up by a spawn right now) or gone: nothing to take.
      if (this.disposed || m.status === 'shutdown' || this.running(m.name) || m.host?.id === this.hostId) continue;
      const foreign = liveForeignHost(m, this.hostId, this.opts.heartbeatMs);
      if (foreign) {
        this.markRemote(m.name, foreign);
        continue;
      }
      // No more than maxTeammates run at once (a cloned roster of 1,000 must not start 1,000).
      if (this.teammates.size + this.starting.size + elsewhere >= this.s.maxTeammates) {
        this.holdBack(m.name);
        continue;
      }
      const r = await this.claim(m.name).catch(() => undefined);
      if (!r) continue;
      if ('foreign' in r) {
        this.markRemote(m.name, r.foreign);
        continue;
      }
      this.remote.delete(m.name);
      // A spawn here may have started it while the claim was under way.
      if (!this.running(m.name)) await this.resume(r.member);
    }
  }

  /** Members left unresumed by maxTeammates (told once each); they stay on the roster as they were. */
  private heldBack = new Set<string>();

  private holdBack(name: string): void {
    if (this.heldBack.has(name)) return;
    this.heldBack.add(name);
    this.emit({
      type: 'notice', level: 'warning', agent: name,
      message: `${name} is not resumed: ${this.s.maxTeammates} teammates already run (agentTeams.maxTeammates). It resumes when one stops or the limit is raised.`,
    });
  }

  private markRemote(name: string, host: string): void {
    if (this.remote.get(name) === host) return;
    this.remote.set(name, host);
    this.emit({ type: 'activity', agent: name, activity: { kind: 'remote', host } });
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
    const def = m.agent_type ? this.defs.definitions.find((d) => d.name === m.agent_type) : undefined;
    if (m.agent_type && !def) {
      this.emit({ type: 'notice', level: 'warning', agent: m.name, message: `${m.name}'s agent definition "${m.agent_type}" is gone or broken: it keeps its model and tools, without the definition's instructions.` });
    }
    // A tool outside the member's list is not offered at all (the list is in the roster, so a reload keeps it).
    const tools = new ToolSet(toolsFor('teammate').filter((t) => toolAllowed(t.name, m.tools)));
    const t = new Teammate(identity, cwd, this, tools, teammateSystem(identity, cwd, this.s.planApproval) + definitionPrompt(def));
    t.modelOverride = m.model;
    t.allowedTools = m.tools ?? null;
    // The lease is already ours: taken by claim() on resume, written with the spawn.
    t.model = this.opts.models(m.model ?? this.s.model, t.onModelStatus);
    await t.restore();
    this.teammates.set(m.name, t);
    t.start(prompt, resumeIdle);
    void t.done.then(() => {
      if (this.teammates.get(m.name) === t) this.teammates.delete(m.name);
    });
    return t;
  }

  // ── operations (tools and UI) ──
  async spawnTeammate(input: SpawnInput, by = 'user'): Promise<Member> {
    if (this.disposed) throw new RuntimeError('the runtime is shut down');
    const name = assertTeammateName(input.name);
    const existing = await this.team.roster.get(name);
    if (existing && existing.status !== 'shutdown') {
      const foreign = liveForeignHost(existing, this.hostId, this.opts.heartbeatMs);
      if (foreign) throw new RuntimeError(`${name} is run by another window (host ${foreign})`);
      if (this.running(name)) throw new RuntimeError(`${name} is already ${existing.status}; message it instead`);
    }
    const live = (await this.team.roster.list()).filter((m) => m.status !== 'shutdown' && m.name !== name).length;
    if (live >= this.s.maxTeammates) throw new RuntimeError(`the team already has ${live} teammates (agentTeams.maxTeammates)`);
    const def = input.agent_type ? findDefinition(await this.loadDefinitions(), input.agent_type) : undefined;
    // Plan mode, model and tools go into the same roster write as the spawn: in force before the first model call.
    const role = roleFields(input, def, this.s, by);
    if (by === 'lead' && this.s.confirmTeam) await this.confirmSpawn({ name, role: input.role || def?.name || 'teammate', model: role.model ?? this.s.model, agent_type: def?.name, plan_mode: !!role.plan_mode });
    const wt = input.isolation === 'worktree' ? await this.worktrees.ensure(name) : null;
    const member = await this.team.spawnMember(name, input.role || def?.name || 'teammate', {
      ...role,
      worktree: wt?.workdir ?? null, branch: wt?.branch ?? null, current_task: null, host: makeLease(this.hostId),
    });
    this.emit({ type: 'notice', level: 'info', agent: name, message: `${by} spawned ${name} (${member.role}${member.model ? `, ${member.model}` : ''}${member.plan_mode ? ', plan mode' : ''}).` });
    await this.runTeammate(member, member.plan_mode ? `${PLAN_MODE_START}\n\n${input.prompt}` : input.prompt, false);
    return member;
  }

  async askLead(prompt: string): Promise<void> {
    if (this.disposed) throw new RuntimeError('the runtime is shut down');
    // Definitions added or changed since: the lead sees them from this turn (not mid-turn, for the cache).
    if (!this.lead.busy) {
      await this.loadDefinitions();
      this.lead.system = this.leadPrompt((await this.team.roster.read()).team_name);
    }
    if (this.leadRemote) {
      // Nothing lost: the lead that runs elsewhere reads it as mail from the user.
      await this.sendAsUser('lead', prompt);
      this.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead runs in another window (host ${this.leadRemote}): your words went to its inbox, and it answers there.` });
      return;
    }
    await this.lead.ask(prompt);
  }

  /** Cancels the lead's current turn (the CLI's Ctrl-C). */
  cancelLeadTurn(): void {
    this.lead.cancelTurn();
  }

  sendAsUser(to: string, content: string): Promise<Message> {
    return this.team.mailbox.send({ from: 'user', to, type: 'message', content });
  }

  broadcastAsUser(content: string): Promise<Message[]> {
    return this.team.mailbox.broadcast('user', content);
  }

  requestShutdown(teammate: string): Promise<RequestRecord> {
    return this.team.requestShutdown('user', teammate);
  }

  async stopTeammate(teammate: string): Promise<void> {
    const t = this.teammates.get(teammate);
    if (!t) {
      const m = await this.team.roster.get(teammate);
      if (!m) throw new RuntimeError(`unknown teammate "${teammate}"`);
      const foreign = liveForeignHost(m, this.hostId, this.opts.heartbeatMs);
      if (foreign) throw new RuntimeError(`${teammate} is run by another window (host ${foreign})`);
      await this.team.retireMember(teammate);
      return;
    }
    t.stop();
    await this.processes.killAll(teammate);
    await t.done;
  }

  /** agentTeams.confirmTeam: the user starts what the lead proposes, or the spawn fails with why (the lead reads it). */
  private async confirmSpawn(p: TeammateProposal): Promise<void> {
    const ask = this.opts.approver.confirmTeammate;
    if (!ask) throw new RuntimeError(`not started: agentTeams.confirmTeam is on and this host cannot ask the user`);
    this.lead.setActivity({ kind: 'waiting-approval', what: `start ${proposalText(p)}` });
    const yes = await ask.call(this.opts.approver, p, this.lead.signal).catch(() => false);
    this.lead.setActivity({ kind: 'tool', tool: 'spawn_teammate' });
    if (!yes) throw new RuntimeError(`the user declined to start ${p.name}; ask them what team they want before proposing again`);
  }

  /** Puts a running teammate into plan mode (the lead's request_plan, the Request Plan command). */
  async requestPlan(teammate: string, reason?: string | null, by = 'user'): Promise<Member> {
    return putInPlanMode(this.team, by, teammate, reason);
  }

  async decidePlan(requestId: string, approve: boolean, feedback = ''): Promise<void> {
    const r = await this.team.decidePlan('user', requestId, approve, feedback);
    if (!r.ok) throw new RuntimeError(r.error);
  }

  async createTask(input: { subject: string; description?: string; blockedBy?: number[]; worktree?: string | null }): Promise<Task> {
    const problem = input.worktree ? await this.worktreeProblem(input.worktree) : null;
    if (problem) throw new RuntimeError(`worktree "${input.worktree}" cannot be used: ${problem}`);
    return this.team.tasks.create(input);
  }

  worktreeProblem(name: string): Promise<string | null> {
    return this.worktrees.problemWith(name);
  }

  private wm: WorktreeManager | null = null;

  get worktrees(): WorktreeManager {
    this.wm ??= this.opts.worktrees ?? new WorktreeManager(this.root);
    return this.wm;
  }

  /** The working folder of worktree `name`, created on first use. */
  async worktreeDir(name: string): Promise<string> {
    return (await this.worktrees.ensure(name)).workdir;
  }

  // ── AgentEnv ──
  async recordUsage(agent: string, r: SendResult): Promise<void> {
    const totals = await recordUsage(this.team.roster, agent, r.usage);
    this.emit({ type: 'usage', agent, total: totals.agent });
  }

  budgetGate(agent: string, signal: AbortSignal): Promise<void> {
    const pause = () => (agent === 'lead' ? this.lead : this.teammates.get(agent))?.setActivity({ kind: 'paused', reason: 'token budget spent' });
    return this.budget.wait(() => this.s.tokenBudget, pause, signal);
  }

  async maybeCompact(agent: Agent, messages: ModelMessage[], force = false): Promise<ModelMessage[] | null> {
    if (!force && estimateTokens(messages, agent.system) < this.s.compactAtTokens) return null;
    // Only between rounds where the conversation ends with a user turn we can restate.
    if (messages[messages.length - 1]?.role !== 'user') return null;
    this.emit({ type: 'notice', level: 'info', agent: agent.name, message: `Compacting ${agent.name}'s context.` });
    // The summary is a model call like any other: counted, and so under the budget.
    return compact(agent.model, agent.identity, messages, this.team, agent.signal, {
      maxMessageChars: maxMessageChars(this.s.compactAtTokens), recordUsage: (r) => this.recordUsage(agent.name, r),
    });
  }

  // ── shutdown of the host (not of the team) ──
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const s of this.subs) s.dispose();
    this.lead.stop();
    const running = [...this.teammates.values()];
    // Leave the roster status as it is (working/idle) so the next host resumes them,
    // but give up the lease so it need not wait for it to go stale.
    for (const t of running) t.suspend();
    await Promise.all([this.processes.killEverything(), this.mcp.dispose()]);
    await Promise.all(running.map((t) => t.done));
    await this.team.roster.update((c) => releaseLeases(c, this.hostId)).catch(() => undefined);
    this.team.dispose();
  }
}
