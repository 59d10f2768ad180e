// The team engine over one workspace: roster, mailboxes, protocol requests and the task
// board, plus the protocol operations that touch several of them at once.
import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Member, RequestRecord } from '../../shared/schemas';
import { sweepStaleTemps } from '../util/atomic-file';
import { DirWatcher, type Disposable } from './dir-watcher';
import { keepOutOfGit, TASKS_GITIGNORE, TEAM_GITIGNORE } from './gitignore';
import { Mailbox } from './mailbox';
import { TeamPaths } from './paths';
import { Fences } from './fences';
import { Requests, type RespondResult } from './requests';
import { Roster } from './roster';
import { TeamFiles } from './team-files';
import { TaskBoard } from './task-board';
import { assertTeammateName, isTeammateName } from '../util/names';

export interface TeamOptions {
  /** Fallback poll interval for change notification (file watching is primary). */
  pollMs?: number;
}

/** `queue`: the merge queue (`.team/merge-queue.json`, core/merge). */
export type TeamChange = 'roster' | 'inbox' | 'requests' | 'tasks' | 'queue';
const TEAM_CHANGES: TeamChange[] = ['roster', 'inbox', 'requests', 'tasks', 'queue'];

export class Team {
  readonly paths: TeamPaths;
  readonly roster: Roster;
  readonly mailbox: Mailbox;
  readonly requests: Requests;
  readonly tasks: TaskBoard;
  readonly watcher: DirWatcher;
  /** The one change feed every view follows (team-files.ts), over `watcher`. */
  readonly files: TeamFiles;
  /** Which host may write each agent's transcript and move its cursor (fences.ts). */
  readonly fences: Fences;

  constructor(readonly root: string, opts: TeamOptions = {}) {
    this.paths = new TeamPaths(root);
    this.watcher = new DirWatcher(opts.pollMs ?? 5000);
    this.files = new TeamFiles(this.paths, this.watcher);
    this.roster = new Roster(this.paths);
    this.fences = new Fences(this.paths);
    this.mailbox = new Mailbox(this.paths, this.roster, this.watcher, this.fences);
    this.requests = new Requests(this.paths);
    // A task's owner is a live member (or the lead): a task owned by nobody who runs stays stuck.
    this.tasks = new TaskBoard(this.paths, async (name) => {
      const m = await this.roster.get(name);
      if (!m) return `is not a teammate yet: spawn_teammate ${name} first (later in the same reply is fine), or start it on the task with spawn_teammate's task`;
      return m.status === 'shutdown' ? `has shut down: spawn_teammate ${name} starts it again (later in the same reply is fine)` : null;
    });
  }

  /** Creates the directory layout (idempotent). */
  /**
   * Creates the layout, refusing one whose folders are symbolic links: a cloned repository
   * could ship `.tasks -> ~/somewhere` and have every write land outside the workspace.
   * (Files inside are written by rename, which replaces a link, or appended with O_NOFOLLOW.)
   */
  async init(): Promise<this> {
    const p = this.paths;
    await this.checkFolder();
    await Promise.all([p.inboxDir, p.requestsDir, p.transcriptsDir, p.tasksDir].map((d) => mkdir(d, { recursive: true })));
    await assertNotLinked([p.inboxDir, p.requestsDir, p.transcriptsDir]);
    // Litter of writers killed mid-write (.tasks/.generation.tmp-<pid>-…, roster temps).
    await Promise.all([p.teamDir, p.tasksDir, p.requestsDir, p.inboxDir, p.processesDir].map((d) => sweepStaleTemps(d)));
    await Promise.all([keepOutOfGit(p.teamDir, TEAM_GITIGNORE), keepOutOfGit(p.tasksDir, TASKS_GITIGNORE)]);
    return this;
  }

  /**
   * Throws TeamLayoutError when `.team` or `.tasks` exists but is not a folder (or is a
   * link): such a folder is not a team folder, and reading it as an empty team would hide
   * that. Absent folders are fine (no team yet).
   */
  async checkFolder(): Promise<void> {
    const p = this.paths;
    await assertNotLinked([p.teamDir, p.tasksDir]);
    for (const d of [p.teamDir, p.tasksDir]) {
      const st = await lstat(d).catch(() => null);
      if (st && !st.isDirectory()) {
        throw new TeamLayoutError(`${this.root} is not a team folder: ${d} is a file, not a folder.`);
      }
    }
  }

  /** Spawns or re-spawns a teammate; requests addressed to an earlier incarnation expire. */
  async spawnMember(name: string, role: string, extra: Partial<Member> = {}): Promise<Member> {
    const member = await this.roster.spawn(name, role, extra);
    await this.requests.expireStale(name, member.incarnation ?? 1);
    return member;
  }

  /**
   * A teammate that no longer runs anywhere: its in-progress tasks go back to pending, the
   * roster says shutdown, with no task and no host, and its pending requests expire. (Its
   * processes are the runner's to kill.)
   */
  async retireMember(name: string): Promise<void> {
    await this.tasks.releaseOwnedBy(name);
    await this.roster.patch(name, { status: 'shutdown', current_task: null, host: null });
    // Nobody will answer what was still asked of it (a shutdown request, its plan).
    await this.requests.expireStale(name, Number.POSITIVE_INFINITY);
  }

  /** Lead or user asks a teammate to shut down (record + message). */
  async requestShutdown(from: string, teammate: string, content = 'Please shut down.'): Promise<RequestRecord> {
    // Only teammates shut down: a request to the lead or the user could never be answered.
    assertTeammateName(teammate);
    await this.mailbox.assertRecipient(teammate);
    const member = await this.roster.get(teammate);
    const record = await this.requests.create({
      kind: 'shutdown', from, to: teammate, subject: teammate, incarnation: member?.incarnation ?? 1,
    });
    await this.mailbox.send({ from, to: teammate, type: 'shutdown_request', content, request_id: record.request_id });
    return record;
  }

  /** The addressed teammate answers a shutdown request; the requester is told. */
  async respondShutdown(teammate: string, requestId: string, approve: boolean, reason = ''): Promise<RespondResult> {
    const incarnation = (await this.roster.get(teammate))?.incarnation;
    const r = await this.requests.respond({ requestId, kind: 'shutdown', responder: teammate, approve, reason, incarnation });
    if (r.ok) {
      await this.mailbox.send({
        from: teammate, to: r.record.from, type: 'shutdown_response', content: reason || (approve ? 'Shutting down.' : 'Declined.'),
        request_id: requestId, approve, reason,
        // An approval is news, not a question: read on the requester's next turn, it does not wake it. A refusal does.
        ...(approve ? { notice: true } : {}),
      }).catch(() => undefined);
    }
    return r;
  }

  /** A teammate submits a plan to its approver (`user` or `lead`). */
  async submitPlan(teammate: string, plan: string, approver: 'user' | 'lead'): Promise<RequestRecord> {
    const member = await this.roster.get(teammate);
    const record = await this.requests.create({
      kind: 'plan', from: teammate, to: approver, subject: teammate, incarnation: member?.incarnation ?? 1, plan,
      task: member?.current_task ?? null, plan_mode_id: member?.plan_mode?.id ?? null,
    });
    await this.mailbox.send({
      from: teammate, to: approver, type: 'plan_approval_request', content: plan, request_id: record.request_id, plan,
    });
    return record;
  }

  /**
   * A request by id: its record, or — for a plan the learn-claude-code tutorial submitted as a message only —
   * the record that message stands for (not yet written).
   */
  async findRequest(requestId: string): Promise<RequestRecord | undefined> {
    return (await this.requests.get(requestId)) ?? this.tutorialPlan(requestId);
  }

  /** A tutorial-form plan submission with `requestId` in an approver's inbox, as a record. */
  private async tutorialPlan(requestId: string): Promise<RequestRecord | undefined> {
    for (const approver of ['user', 'lead'] as const) {
      const m = (await this.mailbox.history(approver)).find(
        (x) => x.type === 'plan_approval_request' && x.request_id === requestId,
      );
      if (m?.type !== 'plan_approval_request' || !isTeammateName(m.from)) continue;
      const member = await this.roster.get(m.from);
      return {
        request_id: requestId, kind: 'plan', from: m.from, to: approver, subject: m.from, status: 'pending',
        created_at: m.timestamp, incarnation: member?.incarnation ?? 1, plan: m.plan,
      };
    }
    return undefined;
  }

  /** The approver decides on a plan; the teammate is told with the feedback. */
  async decidePlan(responder: string, requestId: string, approve: boolean, feedback = ''): Promise<RespondResult> {
    if (!(await this.requests.get(requestId))) {
      const tutorial = await this.tutorialPlan(requestId);
      if (tutorial) await this.requests.adopt(tutorial);
    }
    const r = await this.requests.respond({ requestId, kind: 'plan', responder, approve, feedback });
    if (r.ok) {
      await this.mailbox.send({
        from: responder, to: r.record.from, type: 'plan_approval_response',
        content: feedback || (approve ? 'Plan approved.' : 'Plan rejected.'), request_id: requestId, approve, feedback,
      }).catch(() => undefined);
    }
    return r;
  }

  /** Notifies `onChange` of any change to team state, from this process or another. */
  subscribe(onChange: (what: TeamChange) => void): Promise<Disposable> {
    return this.files.on(TEAM_CHANGES, (e) => onChange(e.kind as TeamChange));
  }

  dispose(): void {
    this.watcher.dispose();
  }
}

export class TeamLayoutError extends Error {}

async function assertNotLinked(dirs: string[]): Promise<void> {
  for (const d of dirs) {
    const st = await lstat(d).catch(() => null);
    if (st?.isSymbolicLink()) {
      throw new TeamLayoutError(`${d} is a symbolic link: team files are not written through links (they could land outside the workspace). Replace it with a folder.`);
    }
  }
}

