// The task board (.tasks/task_<id>.json). Reads are lock-free (files are replaced
// atomically); every change — create, update, claim — holds one board lock, which is what
// makes ids unique and claims exclusive across processes.
// Each change also advances a generation record (.tasks/.generation) naming the ids it
// touched, so a process can refresh its view of a 1000-task board by re-reading only what
// changed instead of every file (task-view.ts). Hand edits (no generation bump) are picked
// up within about 10 s, files added or removed by hand at once.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BoardGeneration, Task } from '../../shared/schemas';
import { readJsonFile, readJsonRecord, writeJsonAtomic } from '../util/atomic-file';
import { withFileLock, type LockCheck } from '../util/file-lock';
import { assertTeammateName } from '../util/names';
import { reportProblem } from '../util/problems';
import type { TeamPaths } from './paths';
import { TaskView } from './task-view';
import { claimOverlap, normalizeGlobs } from './file-ownership';
import { planBatch, type NewTask, type NewTaskInBatch } from './task-batch';
import {
  applyUpdate, chainText, claimRefusal, cycleThrough, isClaimable, TaskError,
  type TaskActor, type TaskUpdate,
} from './task-rules';

export { isClaimable, TaskError, type NewTask, type NewTaskInBatch, type TaskActor, type TaskUpdate };

/** Why `name` may not own tasks (not a member, shut down), or null (a live member, or the lead). */
export type OwnerCheck = (name: string) => Promise<string | null>;

/** Owners that are not members yet but are spawned later in the same reply (the lead's task_create/task_update). */
export type Expected = ReadonlySet<string>;

export type ClaimResult = { ok: true; task: Task } | { ok: false; reason: string };

const KEEP_CHANGES = 256;

const Generation = BoardGeneration;
type Generation = BoardGeneration;

export class TaskBoard {
  private touched = new Set<number>();
  /** What this process knows of the board, refreshed by reading only what changed (task-view.ts). */
  private readonly view: TaskView;

  /** @param trustMs how often files are checked for edits made without a generation bump (tests shorten it). */
  constructor(private readonly paths: TeamPaths, private readonly mayOwn: OwnerCheck = async () => null, trustMs?: number) {
    this.view = new TaskView(paths.tasksDir, (id) => paths.task(id), (id) => this.get(id), this.generationPath, () => this.generation(), trustMs);
  }

  private get generationPath(): string {
    return join(this.paths.tasksDir, '.generation');
  }

  private async generation(): Promise<Generation> {
    const r = await readJsonFile(this.generationPath, Generation);
    return r.kind === 'ok' ? r.value : { gen: 0, changes: [] };
  }

  private async quarantinedIds(): Promise<number[]> {
    const names = await readdir(this.paths.tasksDir).catch(() => [] as string[]);
    return names.map((n) => /^task_(\d+)\.json\.corrupt-/.exec(n)).filter((m) => m !== null).map((m) => Number(m[1]));
  }

  private ids(): Promise<number[]> {
    return this.view.ids();
  }

  /** One task, always read from disk. */
  async get(id: number): Promise<Task | undefined> {
    const path = this.paths.task(id);
    const t = await readJsonRecord(path, Task);
    if (!t) return undefined;
    if (t.id !== id) {
      reportProblem({ path, message: `its id is ${t.id}, not ${id} as its name says; left out of the board until one of them is fixed` });
      return undefined;
    }
    return t;
  }

  /** The whole board (shared objects: callers clone before handing out or changing). */
  private snapshot(): Promise<Task[]> {
    return this.view.snapshot();
  }

  /** All tasks in numeric id order. */
  async list(): Promise<Task[]> {
    return structuredClone(await this.snapshot());
  }

  /** The tasks `pick` selects, in id order: on a large board far cheaper than list() (only those are copied). */
  async select(pick: (t: Task) => boolean): Promise<Task[]> {
    return (await this.snapshot()).filter(pick).map((t) => structuredClone(t));
  }

  /** Throws unless the board lock is still this process's (it may be taken while it is stopped). */
  private stillOurs: LockCheck = async () => undefined;

  private async write(task: Task): Promise<void> {
    await writeJsonAtomic(this.paths.task(task.id), task, this.stillOurs);
    this.touched.add(task.id);
  }

  /** Runs a change under the board lock, then publishes the ids it wrote. */
  private mutate<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.paths.tasksDir, '.lock'), async (stillOurs) => {
      this.stillOurs = stillOurs;
      this.touched.clear();
      try {
        return await fn();
      } finally {
        if (this.touched.size) {
          const g = await this.generation();
          const gen = g.gen + 1;
          const changes = [...g.changes, [gen, [...this.touched]] as [number, number[]]].slice(-KEEP_CHANGES);
          await writeJsonAtomic(this.generationPath, { gen, changes }, this.stillOurs);
        }
      }
    });
  }

  private async mustGet(id: number): Promise<Task> {
    const t = await this.get(id);
    if (!t) throw new TaskError(`task ${id} not found`);
    return t;
  }

  async create(input: NewTask): Promise<Task> {
    return (await this.createMany([input]))[0]!;
  }

  /**
   * Adds tasks with consecutive ids under one lock; an item's blockedBy may name an earlier
   * item's `ref`. Nothing is written unless every item is valid.
   */
  async createMany(items: readonly NewTaskInBatch[], expected: Expected = new Set()): Promise<Task[]> {
    for (const owner of new Set(items.map((i) => i.owner).filter((o): o is string => !!o))) await this.checkOwner(owner, expected);
    return this.mutate(async () => {
      const ids = await this.ids();
      // A task file moved aside as corrupt (task_7.json.corrupt-…) keeps its id taken: a new
      // task must not inherit the old one's blockers, mail or worktree by number.
      const taken = Math.max(ids[ids.length - 1] ?? 0, ...(await this.quarantinedIds()));
      const planned = planBatch(items, taken + 1).map((t) => ({ ...t, files: normalizeGlobs(t.files) }));
      const tasks: Task[] = [];
      for (const [i, input] of planned.entries()) {
        const open: number[] = [];
        for (const b of new Set(input.blockedBy ?? [])) {
          // Blockers made earlier in this batch are open by construction.
          if (b > taken && b < taken + 1 + i) {
            open.push(b);
            continue;
          }
          const blocker = await this.get(b);
          if (!blocker) throw new TaskError(`blockedBy: task ${b} not found`);
          // A blocker that is already completed does not block.
          if (blocker.status !== 'completed') open.push(b);
        }
        tasks.push({
          id: taken + 1 + i,
          subject: input.subject,
          description: input.description ?? '',
          status: 'pending',
          owner: input.owner ?? '',
          blockedBy: open,
          ...(input.worktree ? { worktree: assertTeammateName(input.worktree) } : {}),
          ...(input.files ? { files: input.files } : {}),
        });
      }
      for (const t of tasks) await this.write(t);
      return tasks;
    });
  }

  /**
   * Changes a task as `actor` (`user`, `lead` or a teammate's name) may: see task-rules.ts.
   * A completed blocker is dropped from `addBlockedBy`; one that would close a cycle is refused.
   */
  async update(id: number, change: TaskUpdate, actor: TaskActor = 'user', expected: Expected = new Set()): Promise<Task> {
    if (change.owner) await this.checkOwner(change.owner, expected);
    return this.mutate(async () => {
      const task = await this.mustGet(id);
      const add: number[] = [];
      for (const b of new Set(change.addBlockedBy ?? [])) {
        if (b === id) throw new TaskError('a task cannot block itself');
        const blocker = await this.get(b);
        if (!blocker) throw new TaskError(`blockedBy: task ${b} not found`);
        if (blocker.status === 'completed' || task.blockedBy.includes(b)) continue;
        const cycle = await cycleThrough(id, b, async (n) => (await this.get(n))?.blockedBy ?? []);
        if (cycle) throw new TaskError(`blockedBy: #${b} would make a cycle (${chainText(cycle)}); none of them could ever start`);
        add.push(b);
      }
      const next = applyUpdate(task, change, actor, add);
      if (next.status === 'in_progress' && task.status !== 'in_progress' && next.files?.length) this.refuseOverlap(next, await this.snapshot());
      await this.write(next);
      if (change.status === 'completed') await this.unblockDependents(id);
      return next;
    });
  }

  /** File ownership: no two in-progress tasks whose files may overlap (file-ownership.ts). */
  private refuseOverlap(task: Task, board: readonly Task[]): void {
    const why = claimOverlap(task, board);
    if (why) throw new TaskError(`cannot start task ${task.id}: ${why}`);
  }

  private async checkOwner(owner: string, expected: Expected): Promise<void> {
    if (owner === 'lead' || expected.has(owner)) return;
    const why = await this.mayOwn(owner);
    if (why) throw new TaskError(`owner "${owner}" ${why}`);
  }

  /** A name that was never spawned after all: its tasks go back to the board, unowned. */
  async unreserve(owner: string): Promise<Task[]> {
    return this.mutate(async () => {
      const freed: Task[] = [];
      for (const t of await this.snapshot()) {
        if (t.owner !== owner || t.status === 'completed') continue;
        const fresh = await this.get(t.id);
        if (!fresh || fresh.owner !== owner) continue;
        Object.assign(fresh, { owner: '', status: 'pending' });
        await this.write(fresh);
        freed.push(fresh);
      }
      return freed;
    });
  }

  /**
   * Drops the blockers of task `id` that are completed: a completion whose unblocking was cut
   * short (the host killed with -9, a write refused on a full disk between the two) would
   * otherwise leave it blocked for good.
   */
  private async dropDoneBlockers(id: number): Promise<void> {
    const fresh = await this.get(id);
    if (!fresh?.blockedBy.length) return;
    const left = [];
    for (const b of fresh.blockedBy) if ((await this.get(b))?.status !== 'completed') left.push(b);
    if (left.length === fresh.blockedBy.length) return;
    fresh.blockedBy = left;
    await this.write(fresh);
  }

  private async unblockDependents(id: number): Promise<void> {
    for (const other of await this.snapshot()) {
      if (!other.blockedBy.includes(id)) continue;
      const fresh = await this.get(other.id);
      if (!fresh) continue;
      fresh.blockedBy = fresh.blockedBy.filter((b) => b !== id);
      await this.write(fresh);
    }
  }

  /** Atomically claims a pending, unowned, unblocked task for `owner`. */
  async claim(id: number, owner: string): Promise<ClaimResult> {
    return this.mutate(() => this.claimLocked(id, owner));
  }

  private async claimLocked(id: number, owner: string): Promise<ClaimResult> {
    const task = await this.get(id);
    if (!task) return { ok: false, reason: `task ${id} not found` };
    if (task.owner === owner && task.status === 'in_progress') return { ok: true, task };
    // Only a task that owns files reads the board for overlaps (claims of the rest stay one read).
    const why = claimRefusal(task, owner) ?? (task.files?.length ? claimOverlap(task, await this.snapshot()) : null);
    if (why) return { ok: false, reason: why };
    task.owner = owner;
    task.status = 'in_progress';
    await this.write(task);
    return { ok: true, task };
  }

  /**
   * Own in-progress task first, then the lowest-id claimable task, claimed in the same
   * locked step so concurrent claimers never race for one candidate; null when none.
   */
  async nextWorkFor(owner: string, skip: ReadonlySet<number> = new Set()): Promise<Task | null> {
    let tasks = await this.snapshot();
    const own = tasks.find((t) => t.owner === owner && t.status === 'in_progress');
    if (own) return structuredClone(own);
    if (staleBlocked(tasks).length) {
      await this.mutate(async () => {
        for (const t of staleBlocked(await this.snapshot())) await this.dropDoneBlockers(t.id);
      });
      tasks = await this.snapshot();
    }
    const open = (t: Task) => isClaimable(t) && !skip.has(t.id);
    if (!tasks.some(open)) return null;
    return this.mutate(async () => {
      for (const t of await this.snapshot()) {
        if (!open(t)) continue;
        const r = await this.claimLocked(t.id, owner);
        if (r.ok) return r.task;
      }
      return null;
    });
  }

  /** Returns `owner`'s in-progress tasks to `pending` (on shutdown or stop). */
  async releaseOwnedBy(owner: string): Promise<Task[]> {
    return this.mutate(async () => {
      const released: Task[] = [];
      for (const t of await this.snapshot()) {
        if (t.owner !== owner || t.status !== 'in_progress') continue;
        const fresh = await this.releaseLocked(t.id, owner);
        if (fresh) released.push(fresh);
      }
      return released;
    });
  }

  /** Returns one task to `pending` if `owner` still holds it in progress. */
  async releaseTask(id: number, owner: string): Promise<Task | null> {
    return this.mutate(() => this.releaseLocked(id, owner));
  }

  private async releaseLocked(id: number, owner: string): Promise<Task | null> {
    const fresh = await this.get(id);
    if (!fresh || fresh.owner !== owner || fresh.status !== 'in_progress') return null;
    fresh.owner = '';
    fresh.status = 'pending';
    // Who had it: the lead is told to respawn that teammate or reassign the task (runtime/work-left.ts).
    fresh.last_owner = owner;
    await this.write(fresh);
    return fresh;
  }
}

/** Unfinished tasks still blocked by a task that is completed (a change cut short: dropDoneBlockers). */
function staleBlocked(tasks: readonly Task[]): Task[] {
  const done = new Set(tasks.filter((t) => t.status === 'completed').map((t) => t.id));
  return done.size ? tasks.filter((t) => t.status !== 'completed' && t.blockedBy.some((b) => done.has(b))) : [];
}
