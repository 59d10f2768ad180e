// The engine parts behind a session — its Team and, while agents run here, its AgentRunner —
// for the session's own modules (the action table) and for tests that arrange or inspect a
// team. Hosts never reach them (ARCHITECTURE.md "The door"): the door's index does not
// export this file, and test/layering.test.ts refuses a host that imports it. Hosts read the
// session's views (team-view.ts) and act through the action table.
import type { AgentRunner } from '../runtime/agent-runner';
import type { Team } from '../team/team';

export interface SessionParts {
  readonly team: Team;
  /** This host's runner; null while no agent may run here. */
  readonly runner: AgentRunner | null;
}

// Keyed by the session object; the session registers itself when it is made.
const registry = new WeakMap<object, () => SessionParts>();

export function registerParts(session: object, parts: () => SessionParts): void {
  registry.set(session, parts);
}

/** The parts of `session` (a TeamSession). */
export function partsOf(session: object): SessionParts {
  const parts = registry.get(session);
  if (!parts) throw new Error('not a team session');
  return parts();
}
