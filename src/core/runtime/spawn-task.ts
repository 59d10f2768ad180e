// A teammate spawned on a task (spawn_teammate's `task`): the task is checked before anything
// is spawned, and claimed for the new teammate (its worktree entered) before its first model
// call, so its first words are about that task (docs/file-formats.md, "Tasks").
import type { Task } from '../../shared/schemas';
import { claimBound, type WorkdirResolver } from '../team/bound-claim';
import { claimRefusal } from '../team/task-rules';
import type { Team } from '../team/team';
import { RuntimeError } from './runner-options';
import { taskLines } from './prompts';

/** Throws (nothing spawned) unless `name` could claim task `id` now. */
export async function checkStartTask(team: Team, name: string, id: number): Promise<void> {
  const t = await team.tasks.get(id);
  const why = t ? claimRefusal(t, name) : `task ${id} not found`;
  if (why) throw new RuntimeError(`not spawned: it cannot start on task ${id}: ${why}`);
}

/** Claims task `id` for the just-spawned `name`; the words its first prompt starts with ('' without a task). */
export async function claimStartTask(team: Team, name: string, id: number | null | undefined, resolve: WorkdirResolver): Promise<string> {
  if (!id) return '';
  const r = await claimBound(team.tasks, id, name, resolve);
  if (!r.ok) return `You were to start on task #${id}, but it could not be claimed for you: ${r.reason}\n\n`;
  await team.roster.patch(name, { current_task: id });
  return `${taskLines(r.task as Task, 'spawned')}\n\n`;
}

/**
 * The task a teammate spawned without `task` starts on: the lowest pending, unblocked one
 * reserved for it by name (task_create's owner, often in the same reply), as its idle loop
 * would take it; so its first prompt has the task and its details instead of a search.
 */
export async function reservedTaskOf(team: Team, name: string): Promise<number | undefined> {
  const mine = await team.tasks.select((t) => t.owner === name && t.status === 'pending' && !t.blockedBy.length);
  return mine.map((t) => t.id).sort((a, b) => a - b)[0];
}
