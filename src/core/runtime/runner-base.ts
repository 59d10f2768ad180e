// What every agent of a runner calls back into apart from the agents themselves (AgentEnv):
// settings, events, usage and the token budget, compaction, the key's state and worktree
// folders. AgentRunner (agent-runner.ts) adds the agents, their leases and resume.
import { ProcessLedger, sweepOrphans } from '../exec/process-ledger';
import { ProcessRegistry } from '../exec/process-group';
import type { ModelMessage, SendResult } from '../model';
import type { Team } from '../team/team';
import type { MergeQueue } from '../merge/merge-queue';
import type { WorktreeInfo, WorktreeManager } from '../worktree/manager';
import { prepareWorktree } from './worktree-prep';
import type { Agent } from './agent';
import type { Definitions } from '../roles/agent-definitions';
import { RunnerDefinitions } from './runner-definitions';
import { BudgetGate } from './budget-gate';
import { compact, compactAt, estimateTokens } from './compaction';
import { maxMessageChars } from './context-cut';
import { RuntimeError, type RunnerOptions } from './runner-options';
import { Hooks, type HookAgent } from '../hooks/hooks';
import { notifyingApprover } from '../hooks/notify';
import { hookAgent } from '../hooks/tool-hooks';
import type { Approver, RuntimeEvent, RuntimeSettings } from './types';
import { recordUsage, teamTotal } from './usage';
import { CommandSandbox } from '../sandbox/sandbox';

export abstract class RunnerBase {
  readonly team: Team;
  readonly root: string;
  readonly processes: ProcessRegistry;
  readonly worktrees: WorktreeManager;
  readonly mergeQueue: MergeQueue;
  readonly approver: Approver;
  /** Where every command of every agent runs (docs/security.md). */
  readonly sandbox: CommandSandbox;
  /** The folder's hooks (docs/hooks.md), loaded when the runner starts. */
  readonly hooks: Hooks;
  protected s: RuntimeSettings;
  /** Providers that rejected their key (401/403): until the models are refreshed, their agents start no new work. */
  protected readonly rejectedKeys = new Set<string>();
  private readonly budget: BudgetGate;

  constructor(private readonly base: RunnerOptions) {
    this.team = base.team;
    this.root = base.team.root;
    // Each group is written down while it runs, for the host that outlives this one.
    this.processes = new ProcessRegistry(new ProcessLedger(base.team.paths.processesDir, base.hostId));
    this.s = { ...base.settings };
    this.defs = new RunnerDefinitions(this.root, () => this.s.model, (e) => this.emit(e));
    this.hooks = new Hooks({
      root: this.root, sessionId: base.hostId, trusted: base.hooks?.trusted ?? true,
      warn: (message, agent) => this.emit({ type: 'notice', level: 'warning', message, ...(agent ? { agent } : {}) }),
    });
    // Every question to the user tells the Notification hooks first (docs/hooks.md).
    this.approver = notifyingApprover(base.approver, (agent, message) => {
      if (this.hooks.has('Notification')) void this.hooks.run('Notification', this.hookAgentFor(agent), { message, notification_type: 'permission_prompt' }, ['permission_prompt']);
    });
    this.worktrees = base.worktrees;
    this.mergeQueue = base.mergeQueue;
    const approver = base.approver;
    this.sandbox = new CommandSandbox({
      root: this.root, enginePath: base.sandboxPath,
      settings: () => this.s.sandbox, rules: () => this.s.permissions,
      askNetwork: approver.network ? (agent, host, signal) => approver.network!(agent, host, signal) : undefined,
      notice: (level, message, agent) => this.emit({ type: 'notice', level, message, ...(agent ? { agent } : {}) }),
    });
    this.budget = new BudgetGate(
      async () => teamTotal(await this.team.roster.read()),
      (budget) => this.emit({
        type: 'notice', level: 'warning',
        message: `Token budget of ${budget} spent: the team is paused. ${base.raiseBudget ?? 'Raise agentTeams.tokenBudget to continue.'}`,
      }),
    );
  }

  /**
   * Kills what hosts that went away (killed with -9, crashed) left running for their agents,
   * before this host takes those agents over (docs/file-formats.md, "Process records").
   */
  protected async killOrphans(): Promise<void> {
    const killed = await sweepOrphans(this.team.paths.processesDir).catch(() => []);
    for (const k of killed) {
      const what = k.kind === 'job' ? 'background job' : 'command';
      this.emit({ type: 'notice', level: 'info', agent: k.agent, message: `Stopped the ${what} \`${k.command}\` that ${k.agent} started on a host that went away.` });
    }
  }

  // ── agent definitions (runner-definitions.ts) ──
  protected readonly defs: RunnerDefinitions;

  /** Agent definitions as last read (.team/agents, .claude/agents). */
  get definitions(): Definitions {
    return this.defs.current;
  }

  /** Re-reads the definitions; a problem is reported once per file and message. */
  loadDefinitions(): Promise<Definitions> {
    return this.defs.load();
  }

  /** `name` as Hooks.run needs it (an agent this host does not run: no transcript line). */
  protected hookAgentFor(name: string): HookAgent {
    const a = this.agentNamed(name);
    return a ? hookAgent(a) : { name, cwd: this.root, transcriptPath: this.team.paths.transcript(name) };
  }

  /** Loads the hooks (a trusted folder only). */
  protected async loadHooks(teamName: string): Promise<void> {
    await this.hooks.load();
    this.hooks.team = teamName;
  }

  /** SessionStart, once the lead is there (not awaited: a slow hook never holds the start up). */
  protected sessionStart(): void {
    if (this.hooks.has('SessionStart')) void this.hooks.run('SessionStart', this.hookAgentFor('lead'), { source: 'startup' }, ['startup']);
  }

  /**
   * The user's words through the UserPromptSubmit hooks: a block refuses them (an error
   * with the hook's reason), context a hook adds is appended.
   */
  protected async promptThroughHooks(prompt: string): Promise<string> {
    if (!this.hooks.has('UserPromptSubmit')) return prompt;
    const o = await this.hooks.run('UserPromptSubmit', this.hookAgentFor('lead'), { prompt });
    if (o.blocked) throw new RuntimeError(`A UserPromptSubmit hook blocked the prompt: ${o.feedback}`);
    return o.context ? `${prompt}\n\n${o.context}` : prompt;
  }

  /** The agent called `name` that runs here. */
  protected abstract agentNamed(name: string): Agent | undefined;

  /** Whether the lead is in a turn here now (send_message's answer to a teammate). */
  leadBusy(): boolean {
    const lead = this.agentNamed('lead');
    return lead !== undefined && 'busy' in lead && lead.busy === true;
  }

  emit(e: RuntimeEvent): void {
    this.base.events.emit(e);
  }

  settings(): RuntimeSettings {
    return this.s;
  }

  /** A new budget or settings: a spent budget is checked again. */
  protected reopenBudget(): void {
    this.budget.reopen();
  }

  keyRejected(provider: string): boolean {
    return this.rejectedKeys.has(provider);
  }

  noteKeyRejected(provider: string): void {
    this.rejectedKeys.add(provider);
  }

  /** Checkouts made for a spawn whose setup the teammate runs before its first call, by teammate. */
  private readonly unprepared = new Map<string, WorktreeInfo>();

  /** The worktree a teammate is spawned into; a checkout made now is set up by the teammate (preparationFor). */
  protected async openWorktree(name: string): Promise<WorktreeInfo> {
    const info = await this.worktrees.ensure(name);
    if (info.opened) this.unprepared.set(name, info);
    return info;
  }

  /** The setup of `agent`'s new checkout, to run before its first model call (worktree-prep.ts), or null. */
  protected preparationFor(agent: Agent): (() => Promise<string | null>) | null {
    const info = this.unprepared.get(agent.name);
    this.unprepared.delete(agent.name);
    return info ? () => this.prepare(agent, info) : null;
  }

  private prepare(agent: Agent, info: WorktreeInfo): Promise<string | null> {
    const env = { team: this.team, worktrees: this.worktrees, processes: this.processes, emit: (e: RuntimeEvent) => this.emit(e), hostSetup: this.s.worktreeSetup, sandbox: this.sandbox };
    return prepareWorktree(env, { agent: agent.name, worktree: info.name, workdir: info.workdir, note: (e) => agent.transcript.note(e), signal: agent.signal });
  }

  /** The working folder of worktree `name`, created on first use and then set up, with `agent`'s transcript. */
  async worktreeDir(name: string, agent?: string): Promise<string> {
    const info = await this.worktrees.ensure(name);
    const who = agent === undefined ? undefined : this.agentNamed(agent);
    if (info.opened && who) await this.prepare(who, info);
    return info.workdir;
  }

  worktreeProblem(name: string): Promise<string | null> {
    return this.worktrees.problemWith(name);
  }

  async recordUsage(agent: string, r: SendResult): Promise<void> {
    const totals = await recordUsage(this.team.roster, agent, r.usage);
    this.emit({ type: 'usage', agent, total: totals.agent });
  }

  budgetGate(agent: string, signal: AbortSignal): Promise<void> {
    const pause = () => this.agentNamed(agent)?.setActivity({ kind: 'paused', reason: 'token budget spent' });
    return this.budget.wait(() => this.s.tokenBudget, pause, signal);
  }

  async maybeCompact(agent: Agent, messages: ModelMessage[], force = false): Promise<ModelMessage[] | null> {
    const at = compactAt(this.s.compactAtTokens, agent.model.contextWindow?.());
    if (!force && estimateTokens(messages, agent.system) < at) return null;
    // Only between rounds where the conversation ends with a user turn we can restate.
    if (messages[messages.length - 1]?.role !== 'user') return null;
    this.emit({ type: 'notice', level: 'info', agent: agent.name, message: `Compacting ${agent.name}'s context.` });
    // The summary is a model call like any other: counted, and so under the budget.
    return compact(agent.model, agent.identity, messages, this.team, agent.signal, {
      maxMessageChars: maxMessageChars(at), summaryChars: Math.min(200_000, at * 2), recordUsage: (r) => this.recordUsage(agent.name, r),
    });
  }
}
