// "Is this worktree in use?" and "may it be offered for removal?" — one rule each for every
// host and the lead (the CLI's `worktrees`, the Team tree, the lead's worktree tools); here,
// beside the worktrees, because the runtime's tools read it too and no engine imports the
// session. A teammate uses a checkout when it lives in it, or owns an in-progress task bound
// to it, and it may act there: it is working, or it is idle while a live host runs it (mail
// or a task wakes it at any moment). An idle teammate nobody runs does nothing until a host
// resumes it, and a shut-down one never will.
import type { Member, Task } from '../../shared/schemas';
import { liveForeignHost } from '../runtime/lease';
import type { Team } from '../team/team';
import type { BranchState } from './branch-state';
import type { WorktreeInfo, WorktreeManager } from './manager';

export class WorktreeInUseError extends Error {
  constructor(readonly worktree: string, readonly users: string[], hint = '') {
    super(`worktree "${worktree}" is in use by ${users.join(', ')}; shut ${users.length === 1 ? 'it' : 'them'} down first${hint}`);
  }

  /** The same refusal ending with a host's own advice (its command names), so hosts never construct it. */
  withHint(hint: string): WorktreeInUseError {
    return new WorktreeInUseError(this.worktree, this.users, hint);
  }
}

/** Whether `m` may act in its checkout now (see the header). */
function mayAct(m: Member): boolean {
  if (m.status === 'working') return true;
  // Any live host counts, this one included: pass no host id of our own.
  return m.status === 'idle' && !!liveForeignHost(m, '');
}

/** Who uses the worktree at `dir` (named `name`), by the rule above. */
export function worktreeUsersIn(members: Member[], tasks: Task[], name: string, dir: string): string[] {
  const acting = members.filter(mayAct);
  const inside = acting.filter((m) => m.worktree && (m.worktree === dir || m.worktree.startsWith(`${dir}/`))).map((m) => m.name);
  const bound = tasks
    .filter((t) => t.status === 'in_progress' && t.worktree === name && t.owner && acting.some((m) => m.name === t.owner))
    .map((t) => t.owner!);
  return [...new Set([...inside, ...bound])];
}

export async function worktreeUsers(team: Team, name: string, dir: string): Promise<string[]> {
  const [members, tasks] = await Promise.all([team.roster.list(), team.tasks.list()]);
  return worktreeUsersIn(members, tasks, name, dir);
}

/** A worktree as the hosts show it: where its branch stands, who uses it, whether to offer its removal. */
export interface WorktreeView extends WorktreeInfo {
  state: BranchState;
  users: string[];
  /**
   * Its branch is merged into the current branch, its checkout has nothing uncommitted, and
   * its teammate has shut down (or is gone): removing it loses nothing. Offered, never done
   * by itself.
   */
  removable: boolean;
}

export async function worktreeViews(team: Team, wm: WorktreeManager): Promise<WorktreeView[]> {
  const [list, members, tasks] = await Promise.all([wm.list(), team.roster.list().catch(() => []), team.tasks.list().catch(() => [])]);
  return Promise.all(list.map(async (w) => {
    const state = await wm.branchState(w.name);
    const users = worktreeUsersIn(members, tasks, w.name, w.path);
    const own = members.find((m) => m.name === w.name);
    const removable = state.merge === 'merged' && state.uncommitted === 0 && !users.length && (!own || own.status === 'shutdown');
    return { ...w, state, users, removable };
  }));
}
