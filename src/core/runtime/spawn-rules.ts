// When a teammate may be spawned here: not while another live host runs it, not twice
// here, and not past agentTeams.maxTeammates live teammates.
import type { Member } from '../../shared/team-schemas';
import type { Team } from '../team/team';
import { RuntimeError } from './runner-options';

/** Throws a RuntimeError saying why `name` cannot be spawned now. */
export async function checkSpawn(
  team: Team, name: string, opts: { foreign(m: Member): string | null; runsHere: boolean; maxTeammates: number },
): Promise<void> {
  const members = await team.roster.list();
  const existing = members.find((m) => m.name === name);
  if (existing && existing.status !== 'shutdown') {
    const host = opts.foreign(existing);
    if (host) throw new RuntimeError(`${name} is run by another window (host ${host})`);
    if (opts.runsHere) throw new RuntimeError(`${name} is already ${existing.status}; message it instead`);
  }
  const live = members.filter((m) => m.status !== 'shutdown' && m.name !== name).length;
  if (live >= opts.maxTeammates) throw new RuntimeError(`the team already has ${live} teammates (agentTeams.maxTeammates)`);
}
