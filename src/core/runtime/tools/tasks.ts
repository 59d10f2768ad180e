// Task-board tools, and the teammate's idle: the autonomous loop around the board. The
// board's rules (who may claim, what completion unblocks, worktree-bound claims) live in
// core/team (task-board, task-rules, bound-claim).
import { z } from 'zod';
import { claimBound } from '../../team/bound-claim';
import { TaskError } from '../../team/task-board';
import { formatTask } from '../prompts';
import { afterTasksCreated, completionBlocked } from '../../hooks/task-hooks';
import { fail, ok, toolFamily, type AgentHandle, type ToolHost, type ToolResult } from './definition';

/** What the task family uses of the host: the board, worktree folders, hooks, the merge queue. */
export type TaskToolHost = Pick<ToolHost, 'team' | 'workdirs' | 'hooks' | 'mergeQueue'>;
const defineTool = toolFamily<keyof TaskToolHost>();

const taskId = z.number().int().positive();
const taskIds = z.array(z.number().int().positive());

export const idle = defineTool({
  name: 'idle',
  description: 'Stop working for now: new messages or claimable tasks wake you.',
  input: z.object({}),
  agents: ['teammate'],
  async run(_i, a, h) {
    a.endAfterRound('idle');
    // A branch the merge queue sent back, committed to since: queued again by itself (merge-queue.ts requeueFixed).
    const again = await h.mergeQueue.requeueFixed(a.name).catch(() => null);
    const queued = again?.entry ? ` Your fixed branch is in the merge queue again (${again.entry.branch}); you hear when it lands or fails.` : '';
    return ok(`Going idle. You will be woken by new messages or tasks.${queued}`);
  },
});

const claimInput = z.object({ task_id: taskId });

async function claim({ task_id }: z.output<typeof claimInput>, a: AgentHandle, h: TaskToolHost): Promise<ToolResult> {
  // Lead or teammate: the claim either moves it into the task's worktree or does not hold.
  const r = await claimBound(h.team.tasks, task_id, a.name, (w) => h.workdirs.dir(w, a.name));
  if (!r.ok) return fail(r.reason);
  if (a.kind === 'teammate') await h.team.roster.patch(a.name, { current_task: r.task.id }).catch(() => undefined);
  // The description carries the acceptance criteria: the claimer sees them as an automatic hand-over would.
  const details = r.task.description ? `\nDetails: ${r.task.description}` : '';
  if (r.workdir) {
    a.setWorkdir(r.workdir);
    return ok(`Claimed ${formatTask(r.task)}${details}\nYou now work in worktree "${r.task.worktree}" (${a.cwd}).`);
  }
  return ok(`Claimed ${formatTask(r.task)}${details}`);
}

const claimTool = {
  name: 'claim_task',
  description: 'Take a pending, unblocked task.',
  input: claimInput,
  run: claim,
};

/** A teammate is offered claim_task next to idle (the pair an autonomous teammate lives by). */
export const claimTaskTeammate = defineTool({ ...claimTool, agents: ['teammate'] });
/** The lead is offered it after the other board tools. Same tool, same handler. */
export const claimTaskLead = defineTool({ ...claimTool, agents: ['lead'] });

// Described once, on the single task's fields; an item of `tasks` has the same fields, bare.
const newTaskFields = {
  description: z.string().nullish(),
  owner: z.string().nullish(),
  worktree: z.string().nullish(),
  files: z.array(z.string()).nullish(),
};

export const taskCreate = defineTool({
  name: 'task_create',
  description: 'Add a task, or several (`tasks`, all or none).',
  input: z.object({
    subject: z.string().min(1).nullish(),
    blockedBy: taskIds.nullish().describe('Ids to complete first.'),
    description: newTaskFields.description.describe('Acceptance criteria.'),
    owner: newTaskFields.owner.describe('Reserve it for this teammate (an existing one, or one you spawn in the same reply); default: the first idle teammate.'),
    worktree: newTaskFields.worktree.describe('Whoever claims it works in this git worktree.'),
    files: newTaskFields.files.describe('Globs it may change: nobody else may edit them while it is in progress.'),
    tasks: z.array(z.object({
      ref: z.string().nullish(),
      subject: z.string().min(1),
      blockedBy: z.array(z.union([z.number().int().positive(), z.string()])).nullish(),
      ...newTaskFields,
    })).nullish().describe('Several, in order, with the fields above and a `ref` later blockedBy may name.'),
  }).refine((i) => i.subject || i.tasks?.length, { message: 'give a subject, or tasks' }),
  // The items' fields are the ones above, said once: the model is sent `tasks` as objects needing a subject.
  forModel: (s) => {
    const props = s.properties as Record<string, Record<string, unknown>>;
    return { ...s, properties: { ...props, tasks: { ...props.tasks, items: { type: 'object', required: ['subject'] } } } };
  },
  // Teammates rarely plan work for others: offered when their definition's tools list names it.
  optIn: ['teammate'],
  agents: ['lead', 'teammate'],
  async run({ subject, blockedBy, tasks, ...rest }, a, h) {
    const items = [...(subject ? [{ ...rest, subject, blockedBy: blockedBy ?? [] }] : []), ...(tasks ?? [])];
    for (const worktree of new Set(items.map((t) => t.worktree).filter((w): w is string => !!w))) {
      const problem = await h.workdirs.problem(worktree);
      if (problem) return fail(`Not created: worktree "${worktree}" cannot be used: ${problem}`);
    }
    const created = await h.team.tasks.createMany(items.map((t) => ({ ...t, blockedBy: t.blockedBy ?? [] })), a.spawnsInReply).catch((err: Error) => err);
    if (created instanceof TaskError) {
      // Said plainly: nothing of the call is on the board, so the whole call is to be sent again.
      return fail(items.length > 1
        ? `Nothing created: the whole call was rejected (none of its ${items.length} tasks is on the board): ${created.message}. Fix that and send the whole call again.`
        : `Not created: ${created.message}.`);
    }
    if (created instanceof Error) throw created;
    const said = await afterTasksCreated(h.hooks, a, created);
    return ok([...created.map((t) => `Created ${formatTask(t)}`), ...(said ? [said] : [])].join('\n'));
  },
});

export const taskList = defineTool({
  name: 'task_list',
  description: 'All tasks.',
  input: z.object({}),
  agents: ['lead', 'teammate'],
  async run(_i, _a, h) {
    const tasks = await h.team.tasks.list();
    return ok(tasks.length ? tasks.map(formatTask).join('\n') : 'The board is empty.');
  },
});

export const taskGet = defineTool({
  name: 'task_get',
  description: 'One task with its description.',
  input: z.object({ task_id: taskId }),
  agents: ['lead', 'teammate'],
  async run({ task_id }, _a, h) {
    const t = await h.team.tasks.get(task_id);
    return t ? ok(`${formatTask(t)}\n${t.description}`) : fail(`Task ${task_id} not found.`);
  },
});

export const taskUpdate = defineTool({
  name: 'task_update',
  description: 'Change a task\'s status, owner ("" clears) or blockers; "completed" unblocks its dependents.',
  input: z.object({
    task_id: taskId,
    status: z.enum(['pending', 'in_progress', 'completed']).nullish(),
    owner: z.string().nullish(),
    addBlockedBy: taskIds.nullish(),
    removeBlockedBy: taskIds.nullish(),
  }),
  agents: ['lead', 'teammate'],
  async run({ task_id, status, owner, addBlockedBy, removeBlockedBy }, a, h) {
    const blocked = status === 'completed' ? await completionBlocked(h.hooks, a, await h.team.tasks.get(task_id)) : null;
    if (blocked) return fail(blocked);
    const t = await h.team.tasks.update(task_id, {
      status: status ?? undefined, owner: owner ?? undefined,
      addBlockedBy: addBlockedBy ?? undefined, removeBlockedBy: removeBlockedBy ?? undefined,
    }, a.name, a.spawnsInReply);
    const mine = t.status === 'in_progress' && t.owner === a.name;
    if (a.kind === 'teammate') await h.team.roster.patch(a.name, { current_task: mine ? t.id : null }).catch(() => undefined);
    // agentTeams.merge.auto = onTaskComplete: the work goes into the merge queue.
    const queued = status === 'completed' ? await h.mergeQueue.onTaskCompleted(t) : null;
    const note = queued?.entry ? `\n${queued.entry.branch} was queued for merge; you will hear if it fails.` : queued?.refused ? `\nNot queued for merge: ${queued.refused}.` : '';
    // Done with (or gave up) a worktree-bound task: back to where it works otherwise, once
    // this reply's calls have run (notes written after "mark done" belong with the work).
    if (t.worktree && !mine && a.cwd !== a.homeDir) {
      a.moveAfterReply(a.homeDir);
      return ok(`Updated ${formatTask(t)}\nThe rest of this reply's calls still run in worktree "${t.worktree}" (${a.cwd}); from your next reply you work in ${a.homeDir}.${note}`);
    }
    return ok(`Updated ${formatTask(t)}${note}`);
  },
});

export const taskTools = [idle, claimTaskTeammate, taskCreate, taskList, taskGet, taskUpdate, claimTaskLead];
