// Who may change a task and how (docs/file-formats.md, "Tasks"): a teammate changes only
// tasks it owns, or an unowned one it is claiming; setting an owner follows the claim rules;
// blockers never form a cycle, and a completed blocker blocks nothing. Pure functions over
// tasks, applied by the board under its lock.
import type { Task, TaskStatus } from '../../shared/schemas';

export class TaskError extends Error {}

export interface TaskUpdate {
  status?: TaskStatus;
  owner?: string;
  addBlockedBy?: number[];
  removeBlockedBy?: number[];
}

/** Who asks: `user`, `lead`, or a teammate's name. */
export type TaskActor = string;

const isTeammate = (actor: TaskActor): boolean => actor !== 'user' && actor !== 'lead';

export function isClaimable(t: Task): boolean {
  return t.status === 'pending' && !t.owner && t.blockedBy.length === 0;
}

/** Why `owner` may not claim `t` now, or null. */
export function claimRefusal(t: Task, owner: string): string | null {
  if (t.owner && t.owner !== owner) return `task ${t.id} is owned by ${t.owner}`;
  if (t.status !== 'pending') return `task ${t.id} is ${t.status}`;
  if (t.blockedBy.length) return `task ${t.id} is blocked by ${t.blockedBy.join(', ')}`;
  return null;
}

/** The owner this update gives the task, when it claims it (else null). */
export function claimedOwner(t: Task, change: TaskUpdate, actor: TaskActor): string | null {
  if (change.owner) return change.owner === t.owner ? null : change.owner;
  if (change.owner === undefined && change.status === 'in_progress' && !t.owner) {
    if (!isTeammate(actor) && actor !== 'lead') throw new TaskError(`name an owner to put task ${t.id} in progress`);
    return actor;
  }
  return null;
}

/**
 * Applies `change` to `t` (blockers already checked) as `actor` may, or throws TaskError
 * saying why not.
 */
export function applyUpdate(t: Task, change: TaskUpdate, actor: TaskActor, addBlockers: number[]): Task {
  const newOwner = claimedOwner(t, change, actor);
  if (isTeammate(actor)) {
    if (t.owner && t.owner !== actor) {
      throw new TaskError(`task ${t.id} is owned by ${t.owner}: only its owner, the lead or the user may change it`);
    }
    if (!t.owner && newOwner === null) throw new TaskError(`task ${t.id} is not yours: claim it first (claim_task) to change it`);
    if (newOwner !== null && newOwner !== actor) throw new TaskError(`a teammate claims tasks only for itself, not for ${newOwner}`);
  }
  const next: Task = { ...t, blockedBy: [...t.blockedBy] };
  const drop = new Set(change.removeBlockedBy ?? []);
  next.blockedBy = [...new Set([...next.blockedBy, ...addBlockers])].filter((b) => !drop.has(b));
  if (newOwner !== null && actor === 'user') {
    // The user may change any task: an owner picked in the Tasks tree reserves it for that
    // member as it stands (pending, even blocked); only membership was checked.
    next.owner = newOwner;
    if (change.status !== undefined) next.status = change.status;
    return next;
  }
  if (newOwner !== null) {
    const why = claimRefusal({ ...t, blockedBy: next.blockedBy }, newOwner);
    if (why) throw new TaskError(`cannot give task ${t.id} to ${newOwner}: ${why}`);
    next.owner = newOwner;
    next.status = change.status === 'completed' ? 'completed' : 'in_progress';
    return next;
  }
  if (change.status !== undefined) next.status = change.status;
  // Putting a task back to pending, or clearing its owner, releases it.
  if (change.owner === '' || (change.status === 'pending' && change.owner === undefined)) {
    next.owner = '';
    if (next.status === 'in_progress') next.status = 'pending';
  }
  return next;
}

/**
 * The chain that adding `blocker` to `id`'s blockers would close (`[id, blocker, …, id]`),
 * or null. `blockersOf` reads the current board.
 */
export async function cycleThrough(id: number, blocker: number, blockersOf: (n: number) => Promise<number[]>): Promise<number[] | null> {
  const seen = new Set<number>();
  const walk = async (n: number, path: number[]): Promise<number[] | null> => {
    if (n === id) return path;
    if (seen.has(n)) return null;
    seen.add(n);
    for (const b of await blockersOf(n)) {
      const found = await walk(b, [...path, b]);
      if (found) return found;
    }
    return null;
  };
  return walk(blocker, [id, blocker]);
}

/** blockedBy cycles on a board (each once, from its lowest id). */
export function findCycles(tasks: readonly Task[]): number[][] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const cycles: number[][] = [];
  const done = new Set<number>();
  const onPath = new Map<number, number>();
  const visit = (id: number, path: number[]): void => {
    if (done.has(id)) return;
    const at = onPath.get(id);
    if (at !== undefined) {
      const cycle = path.slice(at);
      const lo = cycle.indexOf(Math.min(...cycle));
      cycles.push([...cycle.slice(lo), ...cycle.slice(0, lo), cycle[lo]!]);
      return;
    }
    const t = byId.get(id);
    if (!t) return;
    onPath.set(id, path.length);
    for (const b of t.blockedBy) visit(b, [...path, id]);
    onPath.delete(id);
    done.add(id);
  };
  for (const t of tasks) visit(t.id, []);
  return cycles;
}

export const chainText = (ids: readonly number[]): string => ids.map((n) => `#${n}`).join(' ← ');
