// Claiming a task bound to a worktree (docs/file-formats.md, "Tasks"): the claimer either
// ends up working in that worktree or does not hold the task. A worktree that cannot be
// created is a reason the claimer is told, never a crash, and the task goes back unclaimed.
import type { Task } from '../../shared/schemas';
import type { TaskBoard } from './task-board';

/** The working folder of worktree `name`, created on first use; throws when it cannot be. */
export type WorkdirResolver = (worktree: string) => Promise<string>;

export type BoundClaim = { ok: true; task: Task; workdir: string | null } | { ok: false; reason: string };

/** Claims `id` for `owner` and enters its worktree, or leaves it unclaimed and says why. */
export async function claimBound(board: TaskBoard, id: number, owner: string, resolve: WorkdirResolver): Promise<BoundClaim> {
  const r = await board.claim(id, owner);
  if (!r.ok) return r;
  return enterBound(board, r.task, owner, resolve);
}

/**
 * The working folder for a task `owner` holds (null: not bound). If its worktree cannot be
 * used the task goes back to the board — nobody can work on it until that is fixed.
 */
export async function enterBound(board: TaskBoard, task: Task, owner: string, resolve: WorkdirResolver): Promise<BoundClaim> {
  if (!task.worktree) return { ok: true, task, workdir: null };
  try {
    return { ok: true, task, workdir: await resolve(task.worktree) };
  } catch (err) {
    await board.releaseTask(task.id, owner);
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      reason: `task ${task.id} is bound to worktree "${task.worktree}", which cannot be used: ${why}. The task stays unclaimed.`,
    };
  }
}
