// When a teammate may be spawned here: not while another live host runs it, not twice
// here, and not past agentTeams.maxTeammates live teammates.
import type { Member } from '../../shared/schemas';
import type { Team } from '../team/team';
import { RuntimeError } from './runner-options';
import type { ModelFactory } from './types';

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

/**
 * Whether `model` can serve an agent, asked of its provider before a spawn (docs/models.md):
 * no key, no such VS Code model, a model without tool calling — refused now with the reason,
 * not at the teammate's first call.
 */
export async function checkSpawnModel(models: ModelFactory, model: string, name: string): Promise<void> {
  const probe = models(model, () => {});
  try {
    await probe.preflight?.();
  } catch (err) {
    throw new RuntimeError(`cannot spawn ${name} on ${model}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
