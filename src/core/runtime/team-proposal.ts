// agentTeams.confirmTeam (docs/file-formats.md, "Confirming the team"): the user starts the
// team the lead proposes, as a whole. The spawn_teammate calls of one lead reply are one
// proposal, asked about once before any of them runs; a spawn outside such a reply is a team
// of one. A refusal (with the user's reason, if any) is what each of those calls returns, so
// the lead can change the team and propose again.
import type { Member } from '../../shared/schemas';
import type { AgentDefinition } from '../roles/agent-definitions';
import { RuntimeError } from './runner-options';
import { proposalText, type Activity, type Approver, type SpawnInput, type TeamAnswer, type TeammateProposal } from './types';

/** The lead, as far as asking on its behalf goes. */
export interface Proposer {
  readonly signal: AbortSignal;
  setActivity(a: Activity): void;
}

interface Decided {
  answer: TeamAnswer;
  /** Everyone the answer was about, for the words the lead reads. */
  team: string[];
  /** The refusal's whole text went into one result already: the others point to it. */
  told?: string;
}

/** What the user is shown of one spawn: its role as roleFields resolved it (core/roles/roles.ts). */
export function proposalOf(name: string, input: SpawnInput, def: AgentDefinition | undefined, role: Partial<Member>, teamModel: string): TeammateProposal {
  return { name, role: input.role || def?.name || 'teammate', model: role.model ?? teamModel, agent_type: def?.name, plan_mode: !!role.plan_mode };
}

/** What the user is asked: the team, one teammate a line. */
export function teamProposalText(ps: readonly TeammateProposal[]): string {
  return ps.length === 1 ? `The lead proposes a teammate: ${proposalText(ps[0]!)}` : `The lead proposes a team of ${ps.length}:\n${ps.map((p) => `- ${proposalText(p)}`).join('\n')}`;
}

export class TeamProposals {
  /** Answers for the spawns of the lead's current reply, by name; taken by each spawn. */
  private decided = new Map<string, Decided>();

  constructor(private readonly approver: () => Approver) {}

  /** Before the tools of a lead reply run: its spawns (already checked) asked about as one team. */
  async gather(proposals: readonly TeammateProposal[], lead: Proposer): Promise<void> {
    this.decided.clear();
    const team = [...new Map(proposals.map((p) => [p.name, p])).values()];
    if (!team.length || !this.approver().confirmTeam) return;
    const answer = await this.ask(team, lead);
    for (const p of team) this.decided.set(p.name, { answer, team: team.map((m) => m.name) });
  }

  /** At a lead's spawn: its answer from the reply's proposal, or asked now for it alone; throws what the lead reads if declined. */
  async check(p: TeammateProposal, lead: Proposer): Promise<void> {
    if (!this.approver().confirmTeam) throw new RuntimeError('not started: agentTeams.confirmTeam is on and this host cannot ask the user');
    const d = this.decided.get(p.name);
    this.decided.delete(p.name);
    const { answer, team, told } = d ?? { answer: await this.ask([p], lead), team: [p.name] };
    if (answer.start) return;
    if (told) throw new RuntimeError(`not started: part of the declined team (${team.join(', ')}); the user's words are in the result for ${told}.`);
    // The same words once, not once per spawn of the reply.
    for (const x of this.decided.values()) if (x.answer === answer) x.told = p.name;
    const why = answer.reason?.trim() ? `, saying: "${answer.reason.trim().slice(0, 2000)}"` : ' (no reason given)';
    throw new RuntimeError(team.length > 1
      ? `not started: the user declined the proposed team (${team.join(', ')})${why}. None of them was started. Change the team accordingly and propose it again (every spawn_teammate in one reply), or ask the user what team they want.`
      : `not started: the user declined to start ${p.name}${why}. Change the proposal accordingly, or ask the user what team they want before proposing again.`);
  }

  private async ask(team: TeammateProposal[], lead: Proposer): Promise<TeamAnswer> {
    const a = this.approver();
    lead.setActivity({ kind: 'waiting-approval', what: team.length === 1 ? `start ${proposalText(team[0]!)}` : `start a team of ${team.length}: ${team.map((p) => p.name).join(', ')}` });
    const answer = await a.confirmTeam!.call(a, team, lead.signal).catch((): TeamAnswer => ({ start: false }));
    lead.setActivity({ kind: 'tool', tool: 'spawn_teammate' });
    return lead.signal.aborted ? { start: false, reason: 'the turn was stopped' } : answer;
  }
}
