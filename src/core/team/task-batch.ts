// Several new tasks in one go (task_create with `tasks`): later ones may be blocked by
// earlier ones, named by their `ref`, before either has an id. Checked as a whole first, so
// a bad item leaves the board untouched.
import { TaskError } from './task-rules';

export interface NewTask {
  subject: string;
  description?: string | null;
  blockedBy?: number[];
  worktree?: string | null;
  /** Reserves the task for this member: only it claims it, and nobody else is given it. */
  owner?: string | null;
  /** Globs of the files it may change (file-ownership.ts). */
  files?: string[] | null;
}

export interface NewTaskInBatch extends Omit<NewTask, 'blockedBy'> {
  /** A name later items of the same batch use in their blockedBy. */
  ref?: string | null;
  /** Ids of tasks on the board, or refs of items earlier in the batch. */
  blockedBy?: Array<number | string>;
}

/** The batch with its refs resolved to the ids it will get from `firstId` on. */
export function planBatch(items: readonly NewTaskInBatch[], firstId: number): NewTask[] {
  const refs = new Map<string, number>();
  return items.map((item, i) => {
    const subject = item.subject.trim();
    if (!subject) throw new TaskError(items.length > 1 ? `task ${i + 1} of ${items.length} needs a subject` : 'a task needs a subject');
    const blockedBy = (item.blockedBy ?? []).map((b) => {
      if (typeof b === 'number') return b;
      const id = refs.get(b);
      if (id === undefined) throw new TaskError(`blockedBy: "${b.slice(0, 40)}" names no task created earlier in this call`);
      return id;
    });
    if (item.ref) {
      if (refs.has(item.ref)) throw new TaskError(`ref "${item.ref.slice(0, 40)}" is used twice in this call`);
      refs.set(item.ref, firstId + i);
    }
    return { ...item, subject, blockedBy };
  });
}
