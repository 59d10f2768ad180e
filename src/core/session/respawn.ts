// A teammate that has shut down, started again as it was: same name (its conversation and
// worktree resumed), role, model, definition and isolation from its roster entry. Used by
// Restart Teammate in the hosts and by the merge queue to bring a teammate back to fix a
// branch that did not land (docs/file-formats.md, "Merge queue").
import type { Member } from '../../shared/schemas';
import type { SpawnInput } from '../runtime/types';

export function respawnInput(m: Member, prompt: string): SpawnInput {
  return {
    name: m.name, role: m.role, prompt, isolation: m.container ? 'container' : m.worktree || m.branch ? 'worktree' : 'none',
    agent_type: m.agent_type ?? undefined, model: m.model ?? undefined,
  };
}
