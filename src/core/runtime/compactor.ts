// The compaction service of a runner (compaction.ts has the how): when an agent's
// conversation nears its context limit (agentTeams.compactAtTokens, or the model's smaller
// window), it is summarised and replaced between rounds. Agents use it through
// AgentEnv.compaction (agent-env.ts).
import type { ModelClient, ModelMessage, SendResult } from '../model';
import type { Team } from '../team/team';
import { compact, compactAt, estimateTokens } from './compaction';
import { maxMessageChars } from './context-cut';
import type { Identity } from './prompts';
import type { RuntimeEvent } from './types';

/** The agent as compaction needs it (the Agent class has all of it). */
export interface Compactable {
  readonly name: string;
  readonly identity: Identity;
  readonly model: ModelClient;
  readonly system: string;
  readonly signal: AbortSignal;
}

/** What agents see of it. */
export interface Compaction {
  /**
   * Summarises and replaces the conversation when it grows too large (or now, with `force`:
   * the API said the prompt is too long); returns the new one.
   */
  maybeCompact(agent: Compactable, messages: ModelMessage[], force?: boolean): Promise<ModelMessage[] | null>;
}

export interface CompactorDeps {
  team: Team;
  emit(e: RuntimeEvent): void;
  /** agentTeams.compactAtTokens, read at each call. */
  compactAtTokens(): number;
  /** The summary is a model call like any other: counted, and so under the budget. */
  recordUsage(agent: string, r: SendResult): Promise<void>;
}

export class Compactor implements Compaction {
  constructor(private readonly deps: CompactorDeps) {}

  async maybeCompact(agent: Compactable, messages: ModelMessage[], force = false): Promise<ModelMessage[] | null> {
    const at = compactAt(this.deps.compactAtTokens(), agent.model.contextWindow?.());
    if (!force && estimateTokens(messages, agent.system) < at) return null;
    // Only between rounds where the conversation ends with a user turn we can restate.
    if (messages[messages.length - 1]?.role !== 'user') return null;
    this.deps.emit({ type: 'notice', level: 'info', agent: agent.name, message: `Compacting ${agent.name}'s context.` });
    return compact(agent.model, agent.identity, messages, this.deps.team, agent.signal, {
      maxMessageChars: maxMessageChars(at), summaryChars: Math.min(200_000, at * 2), recordUsage: (r) => this.deps.recordUsage(agent.name, r),
    });
  }
}
