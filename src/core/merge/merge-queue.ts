// The merge queue (docs/file-formats.md, "Merge queue"; README "Merge queue"): worktree
// teammates' branches integrated one at a time, in order, onto the branch checked out in the
// workspace, each only after its test command passed on the merge. This file is what every
// surface calls (the lead's queue_merge, Queue Merge in VS Code, `agent-teams queue`, /queue):
// add, cancel, retry, list. The work itself is queue-worker.ts, run by a host whose agents run.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOpen, type ControlChange, type MergeEntry } from '../../shared/schemas/merge-queue';
import type { MergeAuto, Task } from '../../shared/schemas';
import { DEFAULT_SANDBOX } from '../../shared/sandbox-schemas';
import { CommandSandbox } from '../sandbox/sandbox';
import { readTeamSettings } from '../team/team-settings';
import { reportProblem } from '../util/problems';
import { resolveCommit } from '../worktree/repo';
import { controlDiffText } from './control-gate';
import type { MergeQueueOptions, WorkerHost } from './queue-options';
import { MergeQueueError, preflight } from './preflight';
import { newEntryId, nowSeconds, QueueStore } from './queue-store';
import { QueueWorker } from './queue-worker';

export { MergeQueueError };

/**
 * `agentTeams.merge.auto` / `agentTeams.merge.testCommand` (CLI `--merge-test`) over
 * `.team/settings.json`'s `{"merge": {"auto", "testCommand"}}` (a bad section is reported and
 * ignored); testCommand null: merge only.
 */
export async function mergeSettings(root: string, s: { mergeAuto?: MergeAuto; mergeTestCommand?: string }): Promise<{ auto: MergeAuto; testCommand: string | null }> {
  const read = await readTeamSettings(root);
  // A file that is not JSON is reported by the permissions and worktree readers; the section's own problem here.
  if (read.problems.merge) reportProblem({ path: join(root, '.team', 'settings.json'), message: read.problems.merge });
  const file = read.sections.merge ?? {};
  return {
    auto: s.mergeAuto && s.mergeAuto !== 'off' ? s.mergeAuto : file.auto ?? 'off',
    testCommand: s.mergeTestCommand?.trim() || file.testCommand?.trim() || null,
  };
}

export interface AddOptions {
  /** The user's own test command for this entry, instead of the configured one ('' = merge only). Never a model's. */
  testCommand?: string | null;
  /** A command run after the test command passes (the lead's queue_merge test_command): it adds to the gate, never replaces it. */
  extraTest?: string | null;
  /** Control-path changes the user approved (queue approve): the entry lands if its merge changes no others. */
  approved?: ControlChange[];
  /** `lead`, `user`, `auto` or `fix` (docs/file-formats.md). */
  by: string;
  task?: number | null;
}

/** The entry `adding` queued, or why it was refused (a MergeQueueError; anything else throws). */
async function refusal(adding: Promise<{ entry: MergeEntry }>): Promise<{ entry?: MergeEntry; refused?: string }> {
  return adding.then(({ entry }) => ({ entry }), (err: unknown) => {
    if (err instanceof MergeQueueError) return { refused: err.message };
    throw err;
  });
}

export class MergeQueue {
  readonly store: QueueStore;
  private worker: QueueWorker | null = null;
  /** The sandbox the queue made for its tests when the host working it lent none. */
  private own: CommandSandbox | null = null;

  constructor(private readonly opts: MergeQueueOptions) {
    this.store = new QueueStore(opts.team.root);
  }

  /** All entries, oldest first (finished ones included, for the views). */
  list(): Promise<MergeEntry[]> {
    return this.store.read();
  }

  async latestByTeammate(): Promise<Map<string, MergeEntry>> {
    const m = new Map<string, MergeEntry>();
    for (const e of await this.list()) m.set(e.teammate, e);
    return m;
  }

  /**
   * Queues `teammate`'s branch, after every check (preflight.ts); its uncommitted work is
   * committed first. Returns the entry and its place among the open ones (1 = next).
   */
  async add(teammate: string, o: AddOptions): Promise<{ entry: MergeEntry; position: number }> {
    const test = o.testCommand == null ? (await this.settings()).testCommand : o.testCommand.trim() || null;
    // The lead's command, unless it is the configured one (run once).
    const extra = (o.extraTest?.trim() || null) === test ? null : o.extraTest?.trim() || null;
    // Refused before preflight commits the teammate's work; asked again under the lock (another process may queue it meanwhile).
    const open = (await this.list()).find((e) => e.teammate === teammate && isOpen(e));
    if (open) throw new MergeQueueError(`${teammate} is already in the merge queue (${open.state}); its outcome reaches you, and a branch at fault comes back to its teammate by itself`);
    const [branch, task] = await Promise.all([
      preflight(this.opts.team, this.opts.worktrees, teammate, [test, extra]),
      o.task ?? this.taskOf(teammate),
    ]);
    const r = await this.store.update((entries) => {
      if (entries.some((e) => e.teammate === teammate && isOpen(e))) throw new MergeQueueError(`${teammate} is already in the merge queue`);
      const now = nowSeconds();
      const entry: MergeEntry = {
        id: newEntryId(), teammate, branch, test_command: test, task, state: 'queued', by: o.by, queued_at: now, updated_at: now,
        ...(extra ? { extra_test_command: extra } : {}), ...(o.approved?.length ? { approved: o.approved } : {}),
      };
      entries.push(entry);
      return { entry, position: entries.filter(isOpen).length };
    });
    this.worker?.kick();
    return r;
  }

  /** Cancels `teammate`'s open entry; a test running for it here is stopped. */
  async cancel(teammate: string): Promise<MergeEntry> {
    const e = await this.store.update((entries) => {
      const found = entries.find((x) => x.teammate === teammate && isOpen(x));
      if (!found) throw new MergeQueueError(`${teammate} has no queued merge to cancel`);
      Object.assign(found, { state: 'cancelled', updated_at: nowSeconds(), waiting: null, reason: 'cancelled' });
      return { ...found };
    });
    this.worker?.cancelled(e.id);
    this.worker?.kick();
    return e;
  }

  /** Queues a failed or cancelled teammate's branch again, at the end, with its test command and task. */
  async retry(teammate: string, by = 'user'): Promise<{ entry: MergeEntry; position: number }> {
    const last = (await this.latestByTeammate()).get(teammate);
    if (!last) throw new MergeQueueError(`${teammate} has never been queued`);
    if (isOpen(last)) throw new MergeQueueError(`${teammate} is already in the merge queue (${last.state})`);
    if (last.state === 'merged') throw new MergeQueueError(`${teammate}'s last entry was merged; queue it again with queue add`);
    return this.again(last, by);
  }

  /** `last` queued again with its test commands and task (and what the user approved). */
  private again(last: MergeEntry, by: string, approved?: ControlChange[]): Promise<{ entry: MergeEntry; position: number }> {
    return this.add(last.teammate, { by, testCommand: last.test_command ?? '', extraTest: last.extra_test_command, task: last.task, ...(approved ? { approved } : {}) });
  }

  /** The entry of `teammate` held at the gate (control-gate.ts) and the diff of its control files. */
  async pendingApproval(teammate: string): Promise<{ entry: MergeEntry; diff: string }> {
    const last = (await this.latestByTeammate()).get(teammate);
    if (last?.state !== 'failed' || !last.control?.length || !last.base || !last.commit) throw new MergeQueueError(`${teammate} has no merge waiting for approval`);
    return { entry: last, diff: await controlDiffText(this.opts.worktrees.root, last.base, last.commit, last.control) };
  }

  /** The user's yes to the control files `teammate`'s held entry changes: queued again, landing if its merge changes exactly these (or fewer). */
  async approve(teammate: string, by = 'user'): Promise<{ entry: MergeEntry; position: number }> {
    const { entry: last } = await this.pendingApproval(teammate);
    return this.again(last, by, last.control);
  }

  /**
   * A completed task of a worktree teammate queues its branch: a fix of a branch that came
   * back (requeueFixed), else with agentTeams.merge.auto = onTaskComplete.
   */
  async onTaskCompleted(task: Task): Promise<{ entry?: MergeEntry; refused?: string } | null> {
    const who = task.worktree ?? task.owner;
    if (!who) return null;
    const fixed = await this.requeueFixed(who);
    if (fixed) return fixed;
    if ((await this.settings()).auto !== 'onTaskComplete' || !(await this.opts.worktrees.get(who).catch(() => undefined))) return null;
    return refusal(this.add(who, { by: 'auto', task: task.id }));
  }

  /** The teammate's branch came back at fault and has no commit since: it has a fix to make (shutdown_response waits for it). */
  async sentBack(teammate: string): Promise<boolean> {
    const back = await this.cameBack(teammate);
    return !!back && back.tip === back.entry.tip;
  }

  /**
   * A branch that came back with the branch at fault (queue-notes.ts) is queued again, `by:
   * "fix"`, once its teammate has committed since (its tip moved) and goes idle or completes
   * its task — whatever merge.auto says: it was already asked to land. Null when there is no such fix.
   */
  async requeueFixed(teammate: string): Promise<{ entry?: MergeEntry; refused?: string } | null> {
    const back = await this.cameBack(teammate);
    if (!back?.tip || back.tip === back.entry.tip) return null;
    return refusal(this.again(back.entry, 'fix'));
  }

  /** The teammate's last entry when it failed with the branch at fault (sent back to fix), with the branch's tip now. */
  private async cameBack(teammate: string): Promise<{ entry: MergeEntry; tip: string | undefined } | null> {
    const last = (await this.latestByTeammate()).get(teammate);
    if (last?.state !== 'failed' || last.failure?.fault !== 'branch' || last.control?.length || !last.tip) return null;
    return { entry: last, tip: await resolveCommit(this.opts.worktrees.root, `refs/heads/${last.branch}`, {}).catch(() => undefined) };
  }

  private settings(): ReturnType<typeof mergeSettings> {
    return mergeSettings(this.opts.team.root, this.opts.settings());
  }

  // The task the work is for: its in-progress one, else the last it completed.
  private async taskOf(teammate: string): Promise<number | null> {
    const mine = await this.opts.team.tasks.select((t) => (t.owner === teammate || t.worktree === teammate) && t.status !== 'pending');
    const open = mine.find((t) => t.status === 'in_progress');
    return (open ?? mine.at(-1))?.id ?? null;
  }

  /**
   * Works the queue in this process until entry `id` is merged, failed or cancelled
   * (`agent-teams queue add --wait`), alongside any other host: one entry at a time.
   */
  async untilSettled(id: string): Promise<MergeEntry> {
    this.start({ notify: () => undefined });
    try {
      for (;;) {
        const e = (await this.list()).find((x) => x.id === id);
        if (!e) throw new Error(`no merge-queue entry ${id}`);
        if (!isOpen(e)) return e;
        await sleep(200);
      }
    } finally {
      await this.dispose();
    }
  }

  /** This host works the queue from now on (the host whose agents run); idempotent. */
  start(host: WorkerHost = {}): void {
    if (this.worker) return this.worker.kick();
    const notify = host.notify ?? (() => undefined);
    const s = this.opts.settings;
    // Without the host's sandbox the tests run in one of the queue's own, over the queue's settings.
    this.own = host.sandbox ? null : new CommandSandbox({ root: this.opts.worktrees.root, settings: () => s().sandbox ?? DEFAULT_SANDBOX, rules: () => s().permissions, notice: notify });
    this.worker = new QueueWorker({ ...this.opts, store: this.store, processes: host.processes, tests: host.sandbox ?? this.own!, notify, askChange: host.askChange, bringBack: host.bringBack });
    this.worker.kick();
  }

  /** Resolves when the worker has nothing it can do now (tests, the CLI's one-shot runs). */
  idle(): Promise<void> {
    return this.worker?.idle() ?? Promise.resolve();
  }

  /** Stops working here: a test running now is killed and its entry retried by the next host. */
  async dispose(): Promise<void> {
    const [w, own] = [this.worker, this.own];
    [this.worker, this.own] = [null, null];
    await w?.dispose();
    await own?.dispose();
  }
}
