// TaskCreated and TaskCompleted (docs/hooks.md) for the task tools. TaskCompleted runs
// before a task is marked completed: a block (exit 2, `decision: "block"`) leaves it in
// progress and hands the hook's words (a failing test run, say) to the agent. TaskCreated
// runs after a task is created: a block cannot undo it, its words go to the agent.
import type { Task } from '../../shared/schemas';
import type { Hooks } from './hooks';
import { hookAgent, type HookedAgent } from './tool-hooks';

type Who = { name: string; cwd: string; transcript?: HookedAgent['transcript'] };

function taskFields(hooks: Hooks, who: Who, t: Task): Record<string, unknown> {
  return { task: t, task_id: String(t.id), task_subject: t.subject, task_description: t.description, teammate_name: who.name, team_name: hooks.team };
}

/** Why `task` may not be completed now (a hook's feedback), or null. */
export async function completionBlocked(hooks: Hooks | undefined, who: Who, task: Task | undefined): Promise<string | null> {
  if (!hooks?.has('TaskCompleted') || !task || task.status === 'completed') return null;
  const o = await hooks.run('TaskCompleted', hookAgent(who), taskFields(hooks, who, task));
  return o.blocked ? `Task ${task.id} stays ${task.status.replace('_', ' ')}: a TaskCompleted hook blocked its completion:\n${o.feedback}` : null;
}

/** What TaskCreated hooks said about `tasks` ('' when nothing). */
export async function afterTasksCreated(hooks: Hooks | undefined, who: Who, tasks: readonly Task[]): Promise<string> {
  if (!hooks?.has('TaskCreated')) return '';
  const said: string[] = [];
  for (const t of tasks) {
    const o = await hooks.run('TaskCreated', hookAgent(who), taskFields(hooks, who, t));
    if (o.blocked) said.push(`TaskCreated hook on task ${t.id}: ${o.feedback}`);
  }
  return said.join('\n');
}
