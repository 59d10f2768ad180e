// The spawner of a runner: starts a teammate here for the lead's spawn_teammate or the user
// (checked, its definition, model, plan mode and worktree written with the spawn in one
// roster write, its start task claimed), and under agentTeams.confirmTeam proposes the
// spawns of one lead reply to the user as one team (team-proposal.ts). Tools reach it
// through ToolHost.spawner; the session through the runner.
import type { Member } from '../../shared/schemas';
import { PLAN_MODE_START } from '../roles/plan-mode';
import { knownModel, unknownModelWarning } from '../roles/models';
import { findDefinition, roleFields } from '../roles/roles';
import type { Team } from '../team/team';
import { assertTeammateName } from '../util/names';
import type { LeaseKeeper } from './lease-keeper';
import type { RunnerDefinitions } from './runner-definitions';
import { RuntimeError } from './runner-options';
import { checkSpawn, checkSpawnModel } from './spawn-rules';
import { checkStartTask, claimStartTask, reservedTaskOf } from './spawn-task';
import { proposalOf, TeamProposals, type Proposer } from './team-proposal';
import type { Spawning } from './tools/definition';
import type { Approver, ModelFactory, RuntimeEvent, RuntimeSettings, SpawnInput, TeammateProposal } from './types';
import type { AgentWorkdirs } from './workdirs';
import type { ContainerSeats } from '../container/seats';

export interface SpawnerDeps {
  team: Team;
  settings(): RuntimeSettings;
  emit(e: RuntimeEvent): void;
  models: ModelFactory;
  approver: Approver;
  defs: RunnerDefinitions;
  leases: Pick<LeaseKeeper, 'foreign' | 'lease'>;
  workdirs: Pick<AgentWorkdirs, 'open' | 'dir'>;
  /** Container teammates: checked and given their branch before the spawn is written. */
  containers: Pick<ContainerSeats, 'open'>;
  /** The lead, as far as asking the user on its behalf goes. */
  lead(): Proposer;
  /** Runs here now, or is being started here. */
  runsHere(name: string): boolean;
  /** Starts running the spawned member here with its first prompt. */
  run(member: Member, prompt: string): Promise<unknown>;
  /** The runner is shut down: no more spawns. */
  disposed(): boolean;
}

export class Spawner implements Spawning {
  private readonly proposals: TeamProposals;

  constructor(private readonly d: SpawnerDeps) {
    this.proposals = new TeamProposals(() => d.approver);
  }

  private get s(): RuntimeSettings {
    return this.d.settings();
  }

  async spawn(input: SpawnInput, by = 'user'): Promise<Member> {
    const { team } = this.d;
    if (this.d.disposed()) throw new RuntimeError('the runtime is shut down');
    const name = assertTeammateName(input.name);
    await checkSpawn(team, name, { foreign: (m) => this.d.leases.foreign(m), runsHere: this.d.runsHere(name), maxTeammates: this.s.maxTeammates });
    const def = input.agent_type ? findDefinition(await this.d.defs.load(), input.agent_type) : undefined;
    // Plan mode, model and tools go into the same roster write as the spawn: in force before the first model call.
    const role = roleFields(input, def, this.s, by);
    await checkSpawnModel(this.d.models, role.model ?? this.s.model, name);
    if (input.task) await checkStartTask(team, name, input.task);
    if (by === 'lead' && this.s.confirmTeam) await this.proposals.check(proposalOf(name, input, def, role, this.s.model), this.d.lead());
    // The spawn's own isolation, else its definition's (docs/containers.md).
    const isolation = input.isolation ?? def?.isolation ?? 'none';
    const wt = isolation === 'worktree' ? await this.d.workdirs.open(name) : null;
    const box = isolation === 'container' ? await this.d.containers.open(name).catch((e: Error) => { throw new RuntimeError(`${name} cannot run in a container: ${e.message}`); }) : null;
    const member = await team.spawnMember(name, input.role || def?.name || 'teammate', {
      ...role,
      worktree: wt?.workdir ?? null, branch: wt?.branch ?? box, container: box ? true : null, current_task: null, host: this.d.leases.lease(),
    });
    this.d.emit({ type: 'notice', level: 'info', agent: name, message: `${by} spawned ${name} (${member.role}${member.model ? `, ${member.model}` : ''}${member.plan_mode ? ', plan mode' : ''}).` });
    if (member.model && !knownModel(member.model)) this.d.emit({ type: 'notice', level: 'warning', agent: name, message: `${name}: ${unknownModelWarning(member.model)}.` });
    const start = await claimStartTask(team, name, input.task ?? await reservedTaskOf(team, name), (w) => this.d.workdirs.dir(w));
    await this.d.run(member, `${member.plan_mode ? `${PLAN_MODE_START}\n\n` : ''}${start}${input.prompt}`);
    return member;
  }

  /** agentTeams.confirmTeam: the spawns of one lead reply are asked about as one team (team-proposal.ts). */
  async proposeTeam(inputs: readonly SpawnInput[], by: string): Promise<void> {
    if (by !== 'lead' || !this.s.confirmTeam) return;
    const defs = await this.d.defs.load();
    const team: TeammateProposal[] = [];
    for (const input of inputs) {
      try {
        const def = input.agent_type ? findDefinition(defs, input.agent_type) : undefined;
        team.push(proposalOf(assertTeammateName(input.name), input, def, roleFields(input, def, this.s, 'lead'), this.s.model));
      } catch { /* left out: its own spawn reports why */ }
    }
    await this.proposals.gather(team, this.d.lead());
  }
}
