// The task board as the user changes it: create, complete (which unblocks the tasks waiting
// for it), set a status or an owner (Edit Task), drop blockers (a blocker deleted or moved
// aside as corrupt never completes).
import { z } from 'zod';
import { TaskStatus, type Task } from '../../../shared/schemas';
import { normalizeGlobs } from '../../team/file-ownership';
import { ActionError, defineAction, TaskId, Text } from './action';

/** File ownership globs (core/team/file-ownership.ts): a list, or one comma-separated string as typed. */
export const Globs = z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((g) => g.trim()).filter(Boolean) : v), z.array(z.string()).optional());

const line = (t: Task) => `#${t.id}: ${t.subject}`;

export const createTask = defineAction({
  id: 'createTask', summary: 'create a task',
  args: z.object({ subject: Text, description: z.string().optional(), blockedBy: z.array(TaskId).optional(), worktree: z.string().nullish(), files: Globs }),
  async run({ session, openTeam }, a) {
    let files: string[] | undefined;
    try {
      files = a.files === undefined ? undefined : (normalizeGlobs(a.files) ?? []);
    } catch (err) {
      throw new ActionError((err as Error).message);
    }
    await openTeam();
    return session.createTask({ ...a, files });
  },
  describe: (t) => `Created ${line(t)}`,
});

async function known(tasks: { get(id: number): Promise<Task | undefined> }, id: number): Promise<Task> {
  const t = await tasks.get(id);
  if (!t) throw new ActionError(`task ${id} not found`);
  return t;
}

export const completeTask = defineAction({
  id: 'completeTask', summary: 'complete a task (unblocks the tasks waiting for it)',
  args: z.object({ id: TaskId }),
  async run({ session, openTeam }, a) {
    const team = await openTeam((t) => known(t.tasks, a.id));
    const waiting = (await team.tasks.list()).filter((t) => t.blockedBy.includes(a.id)).map((t) => t.id);
    const task = await session.updateTask(a.id, { status: 'completed' });
    const unblocked = (await Promise.all(waiting.map((w) => team.tasks.get(w)))).filter((t): t is Task => !!t && t.blockedBy.length === 0);
    return { task, unblocked };
  },
  describe: (r) => [`Completed ${line(r.task)}`, ...r.unblocked.map((t) => `Unblocked ${line(t)}`)].join('\n'),
});

export const unblockTask = defineAction({
  id: 'unblockTask', summary: 'drop blockers from a task (all, or those named)',
  args: z.object({ id: TaskId, from: z.array(TaskId).optional() }),
  async run({ session, openTeam }, a) {
    let before: Task | undefined;
    await openTeam(async (t) => {
      before = await known(t.tasks, a.id);
      const absent = (a.from ?? []).filter((b) => !before!.blockedBy.includes(b));
      if (absent.length) throw new ActionError(`task ${a.id} is not blocked by ${absent.map((b) => `#${b}`).join(', ')}`);
    });
    return session.updateTask(a.id, { removeBlockedBy: a.from ?? before!.blockedBy });
  },
  describe: (t) => `Unblocked ${line(t)}`,
});

export const updateTask = defineAction({
  id: 'updateTask', summary: "set a task's status or owner (owner \"\": nobody)",
  args: z.object({ id: TaskId, status: TaskStatus.optional(), owner: z.string().optional() })
    .refine((a) => a.status !== undefined || a.owner !== undefined, { message: 'name a status or an owner' }),
  async run({ session, openTeam }, a) {
    await openTeam((t) => known(t.tasks, a.id));
    // The board refuses an owner who is not a live member (the claim rules: core/team/task-rules.ts).
    return session.updateTask(a.id, { ...(a.status ? { status: a.status } : {}), ...(a.owner !== undefined ? { owner: a.owner } : {}) });
  },
  describe: (t) => `Updated ${line(t)} (${t.status}${t.owner ? `, ${t.owner}` : ''})`,
});
