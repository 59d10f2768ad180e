// What every agent of a runner calls back into apart from the agents themselves (AgentEnv):
// settings, events, usage and the token budget, compaction, the key's state and worktree
// folders. AgentRunner (agent-runner.ts) adds the agents, their leases and resume.
import { ProcessLedger, sweepOrphans } from '../exec/process-ledger';
import { ProcessRegistry } from '../exec/process-group';
import type { ModelMessage, SendResult } from '../model';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import type { Agent } from './agent';
import type { Definitions } from '../roles/agent-definitions';
import { RunnerDefinitions } from './runner-definitions';
import { BudgetGate } from './budget-gate';
import { compact, compactAt, estimateTokens } from './compaction';
import { maxMessageChars } from './context-cut';
import type { RunnerOptions } from './runner-options';
import type { Approver, RuntimeEvent, RuntimeSettings } from './types';
import { recordUsage, teamTotal } from './usage';

export abstract class RunnerBase {
  readonly team: Team;
  readonly root: string;
  readonly processes: ProcessRegistry;
  readonly worktrees: WorktreeManager;
  readonly approver: Approver;
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
    this.approver = base.approver;
    this.worktrees = base.worktrees;
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

  /** The agent called `name` that runs here. */
  protected abstract agentNamed(name: string): Agent | undefined;

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

  /** The working folder of worktree `name`, created on first use. */
  async worktreeDir(name: string): Promise<string> {
    return (await this.worktrees.ensure(name)).workdir;
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
