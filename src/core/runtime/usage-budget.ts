// The usage-and-budget service of a runner: every model call's tokens are added to the
// roster (usage.ts), and the team token budget (agentTeams.tokenBudget) gates the next call
// (budget-gate.ts). Agents use it through AgentEnv.budget (agent-env.ts); compaction records
// its summary calls through it too.
import type { SendResult } from '../model';
import type { Team } from '../team/team';
import { BudgetGate } from './budget-gate';
import type { RuntimeEvent } from './types';
import { recordUsage, teamTotal } from './usage';

/** What agents see of it. */
export interface Budget {
  /** Resolves when a model call may be made (waits while the team budget is spent). */
  gate(agent: string, signal: AbortSignal): Promise<void>;
  /** Adds one call's usage to `agent`'s record. */
  record(agent: string, r: SendResult): Promise<void>;
}

export interface BudgetDeps {
  team: Team;
  emit(e: RuntimeEvent): void;
  /** The budget in force (0: none). */
  budget(): number;
  /** Shows `agent` paused while the budget is spent. */
  pause(agent: string): void;
  /** How this host's user raises a spent budget (default: the VS Code setting). */
  raiseBudget?: string;
}

export class UsageBudget implements Budget {
  private readonly gateKeeper: BudgetGate;

  constructor(private readonly deps: BudgetDeps) {
    this.gateKeeper = new BudgetGate(
      async () => teamTotal(await deps.team.roster.read()),
      (budget) => deps.emit({
        type: 'notice', level: 'warning',
        message: `Token budget of ${budget} spent: the team is paused. ${deps.raiseBudget ?? 'Raise agentTeams.tokenBudget to continue.'}`,
      }),
    );
  }

  async record(agent: string, r: SendResult): Promise<void> {
    const totals = await recordUsage(this.deps.team.roster, agent, r.usage);
    this.deps.emit({ type: 'usage', agent, total: totals.agent });
  }

  gate(agent: string, signal: AbortSignal): Promise<void> {
    return this.gateKeeper.wait(() => this.deps.budget(), () => this.deps.pause(agent), signal);
  }

  /** A new budget or settings: a spent budget is checked again. */
  reopen(): void {
    this.gateKeeper.reopen();
  }
}
