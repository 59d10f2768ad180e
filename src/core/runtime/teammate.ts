// A teammate's life: spawn → working → idle → working … → shutdown (docs/file-formats.md, "Requests" and "Tasks").
// Idle is event-driven: mail or a task-board change wakes it within milliseconds (file
// watching), a slow poll is only the fallback, and an idle teammate makes no model calls.
import type { Message, Task } from '../../shared/schemas';
import { isOpen } from '../../shared/schemas/merge-queue';
import type { Disposable } from '../team/dir-watcher';
import { isDiskFull } from '../util/io-faults';
import { LockLostError } from '../util/file-lock';
import { waitForDisk } from './disk-pause';
import { Agent, type PhaseEnd } from './agent';
import { enterBound } from '../team/bound-claim';
import { TASK_FILE } from '../team/task-view';
import { finalWords, idledOutWords, reportedToLead } from './phase-report';
import { identityBlock, taskPrompt, type TaskArrival } from './prompts';
import { answerInTransit, awaitingAnswer, planGate, planRefusal, PLANNING_WORDS, wakesPlanWaiter } from '../roles/plan-mode';

type Wake = { kind: 'mail' } | { kind: 'task'; task: Task; how: TaskArrival } | { kind: 'timeout' } | { kind: 'stopped' };

export class Teammate extends Agent {
  readonly kind = 'teammate' as const;
  private wake: (() => void) | null = null;
  private subs: Disposable[] = [];
  /** Last own task we resumed without any other news, to avoid re-prompting it forever. */
  private lastResumed: number | null = null;
  /** The plan request it last waited on, until its answer's mail is here (answerInTransit). */
  private awaitedPlan: string | null = null;
  /** The task it was last given (claimed or resumed). */
  private taskInHand: number | null = null;
  done: Promise<void> = Promise.resolve();
  /** Tasks whose worktree could not be used: not claimed again until new mail arrives. */
  private readonly unworkable = new Set<number>();

  override async planGateOpen(): Promise<boolean> {
    return (await planGate(this.env.team, this.name)).open;
  }

  /** Read from the files on every call: a request_plan from any host counts from the next call. */
  override async planRefusal(tool: string): Promise<string | null> {
    const gate = await planGate(this.env.team, this.name);
    if (gate.open) return null;
    this.env.emit({ type: 'notice', level: 'info', agent: this.name, message: `${this.name}: ${PLANNING_WORDS} (${tool} refused).` });
    // In the transcript too, so its panel and `agent-teams log` say why nothing changed.
    void this.transcript.note({ type: 'notice', what: 'note', level: 'warning', text: `${PLANNING_WORDS}: ${tool} refused until a plan for the current task is approved.` });
    return planRefusal(tool, gate);
  }

  /** Starts the life loop; `initial` is the spawn prompt (absent when resuming). */
  start(initial: string | null, resumeIdle: boolean): void {
    this.done = this.life(initial, resumeIdle);
  }

  /** In a work phase (not idle): where to pick up after a pause on a full disk. */
  private inPhase = false;

  /** The life loop; a full disk pauses it (see disk-pause.ts), anything else retires it. */
  private async life(initial: string | null, resumeIdle: boolean): Promise<void> {
    let again = false;
    for (;;) {
      try {
        if (again) {
          // The conversation as the disk holds it: what failed to be written never happened.
          await this.restore();
          if (this.messages.length) initial = null;
        }
        return await this.live(initial, resumeIdle);
      } catch (err) {
        if (err instanceof LockLostError && !this.stopped) {
          // This process was stopped (SIGSTOP) inside a team-file change and another took its
          // lock: nothing was written. Carry on from the transcript if this host still runs it.
          if (!(await this.env.leases.holds(this.name).catch(() => false))) return this.suspend();
          resumeIdle = !this.inPhase;
          again = true;
          continue;
        }
        if (!isDiskFull(err) || this.stopped) return this.crashed(err);
        resumeIdle = !this.inPhase;
        this.setActivity({ kind: 'paused', reason: 'disk full' });
        await waitForDisk(this.env, err, () => this.stopped);
        if (this.stopped) return this.finish('stopped').catch(() => undefined);
        again = true;
      }
    }
  }

  private async crashed(err: unknown): Promise<void> {
    // Nothing runs it any more: no ghost that looks idle while holding its tasks.
    // Retired only while this host still runs it: one that lost it (paused past its lease) must not.
    if (!this.suspended && !(await this.env.leases.holds(this.name).catch(() => false))) this.suspended = true;
    let released = false;
    if (!this.suspended) {
      await this.env.processes.killAll(this.name).catch(() => undefined);
      released = await this.env.team.retireMember(this.name).then(() => true, () => false);
    }
    this.setActivity({ kind: 'stopped' });
    const after = released
      ? 'Its tasks went back to the board; spawn it again to continue.'
      : 'Its tasks could not be released (see the error); check the board before spawning it again.';
    const message = `${this.name} crashed: ${(err as Error).message}. ${after}`;
    this.env.emit({ type: 'notice', level: 'error', agent: this.name, message });
    if (!this.suspended) await this.tellLead(message, false);
  }

  /** Set by every poke; a poke that lands while idleWait is checking (not yet waiting) is not lost. */
  private poked = false;
  /** Look at mail and the board again now (new mail, a task change, refreshed models, a stop). */
  readonly poke = (): void => {
    this.poked = true;
    this.wake?.();
  };

  private suspended = false;

  /**
   * Its model client changed (key, base URL or model): an own task it gave up on after a
   * failed call is worth another try, without waiting for mail.
   */
  retry(): void {
    this.lastResumed = null;
    this.poke();
  }

  override stop(): void {
    super.stop();
    this.poke();
  }

  /** The setup of the worktree just made for it (runtime/worktree-prep.ts), run before its first model call. */
  preparation: (() => Promise<string | null>) | null = null;

  /** The member's own model (spawned with one), else the team's setting. */
  modelOverride: string | undefined;

  /** The host is going away (reload): stop without shutting down, to resume elsewhere. */
  suspend(): void {
    this.suspended = true;
    this.stop();
  }

  protected override loseLease(): void {
    this.suspend();
  }

  private async live(initial: string | null, resumeIdle: boolean): Promise<void> {
    const team = this.env.team;
    this.subs.push(await team.mailbox.subscribe(this.name, this.poke));
    // Task files and the change record (not lock or temp files). The record is written last in
    // a change: a look at the board on a task file's event alone may see the board from before
    // it (a reserved task still blocked), and nothing else would wake it until the slow poll.
    this.subs.push(await team.watcher.watchDir(team.paths.tasksDir, (f) => (TASK_FILE.test(f) || f === '.generation') && this.poke()));
    try {
      // A new worktree is set up before the first model call; what came of it leads the first prompt.
      if (this.preparation) this.setActivity({ kind: 'tool', tool: 'worktree setup' });
      const setup = await this.preparation?.();
      this.preparation = null;
      if (initial !== null) await this.push({ role: 'user', content: `${identityBlock(this.identity)}\n${setup ? `${setup}\n\n` : ''}${initial}` });
      // After a restart it carries on in the worktree of the task it holds.
      if (initial === null) await this.enterOwnTask();
      let needsWork = !resumeIdle && this.messages[this.messages.length - 1]?.role === 'user';
      for (;;) {
        let end: PhaseEnd | null = null;
        if (needsWork) {
          // Not awaited: the model call need not wait for the roster write. Roster writes
          // from this process are applied in call order, so the later 'idle' still wins.
          team.roster.patch(this.name, { status: 'working' }).catch(() => undefined);
          const phaseStart = this.messages.length;
          this.inPhase = true;
          end = await this.stopGated(['SubagentStop', 'TeammateIdle'], this.env.settings().maxRounds);
          this.inPhase = false;
          if (end === 'stopped' || end === 'shutdown') return await this.finish(end);
          await this.bringBack();
          await this.afterPhase(end);
          if (end === 'end_turn' || end === 'idle') await this.reportResult(phaseStart);
          // A phase cut short (maxRounds, a failed call) is not nudged on again by itself:
          // the task waits for news (mail, a board change, new models).
          if (end === 'max_rounds' || end === 'error') this.lastResumed = this.taskInHand;
        }
        await team.roster.patch(this.name, { status: 'idle' });
        // After a failed call the error stays in view ("idle (error: …)") until the next call.
        if (end !== 'error') this.setActivity({ kind: 'idle' });
        const w = await this.idleWait();
        if (w.kind === 'stopped') return await this.finish('stopped');
        if (w.kind === 'timeout') {
          this.env.emit({ type: 'notice', level: 'info', agent: this.name, message: `${this.name} shut down after idling.` });
          const held = await team.tasks.select((t) => t.owner === this.name && t.status === 'in_progress').catch(() => []);
          await this.tellLead(idledOutWords(this.name, this.env.settings().idleTimeoutSeconds, held.map((t) => t.id)), true);
          return await this.finish('shutdown');
        }
        needsWork = await this.deliverWake(w);
      }
    } finally {
      for (const s of this.subs) s.dispose();
      this.subs = [];
    }
  }

  /** A container teammate's turn ended: its commits come back onto its branch (docs/containers.md). */
  private async bringBack(): Promise<void> {
    if (!this.env.containers.has(this.name)) return;
    await this.env.containers.bringBack(this.name).catch((e: Error) => {
      this.env.emit({ type: 'notice', level: 'error', agent: this.name, message: `${this.name}: its work could not be brought back from its container: ${e.message}` });
    });
  }

  private async afterPhase(end: PhaseEnd): Promise<void> {
    if (end !== 'max_rounds') return;
    const rounds = this.env.settings().maxRounds;
    // A notice: the lead reads it on its next turn, but it does not wake the lead.
    await this.env.team.mailbox
      .send({ from: this.name, to: 'lead', type: 'message', content: `${this.name} stopped after ${rounds} model calls (maxRounds) and is idle.`, notice: true })
      .catch(() => undefined);
    this.env.emit({ type: 'notice', level: 'warning', agent: this.name, message: `${this.name} reached maxRounds (${rounds}).` });
  }

  /** The phase ended without a word to the lead: its final words go to the lead as a `result`. */
  private async reportResult(phaseStart: number): Promise<void> {
    if (reportedToLead(this.messages, phaseStart)) return;
    // A turn ended to wait for its plan's answer is a wait, not a result: the lead has the plan.
    if (await this.awaitingPlan()) return;
    const words = finalWords(this.messages, phaseStart);
    // Nothing said, nothing to report (a teammate that just waits for its first mail).
    if (words === null) return;
    // Never wakes the lead by itself: it gets every result in one turn when the team goes quiet (quiet-team.ts).
    await this.tellLead(words, true);
  }

  /** Its plan was submitted and awaits a decision (plan mode, or a plan it chose to submit). */
  private async awaitingPlan(): Promise<boolean> {
    const gate = await planGate(this.env.team, this.name).catch(() => null);
    return !!gate && !gate.open && gate.pending !== null;
  }

  /** A lifecycle report to the lead; `notice` ones are read on its next turn without waking it. */
  private async tellLead(content: string, notice: boolean): Promise<void> {
    await this.env.team.mailbox.send({ from: this.name, to: 'lead', type: 'result', content, ...(notice ? { notice } : {}) })
      .catch(() => undefined);
  }

  /** Enters the worktree of the in-progress task it holds (after a restart). */
  private async enterOwnTask(): Promise<void> {
    const [own] = await this.env.team.tasks.select((t) => t.owner === this.name && t.status === 'in_progress');
    if (own?.worktree) await this.enterTask(own);
  }

  /** Works where the task says; a worktree that cannot be used sends the task back (false). */
  private async enterTask(task: Task): Promise<boolean> {
    const r = await enterBound(this.env.team.tasks, task, this.name, (w) => this.env.workdirs.dir(w, this.name));
    if (r.ok) {
      this.setWorkdir(r.workdir ?? this.homeDir);
      return true;
    }
    this.unworkable.add(task.id);
    this.env.emit({ type: 'notice', level: 'error', agent: this.name, message: `${this.name}: ${r.reason}` });
    await this.tellLead(`I could not take ${r.reason}`, true);
    return false;
  }

  /** Hands the wake to the model; false when there is nothing to work on after all. */
  private async deliverWake(w: Wake): Promise<boolean> {
    if (w.kind === 'mail') {
      // News may have fixed what made a task unworkable (a branch deleted, a repository made).
      this.unworkable.clear();
      const mail = await this.takeMail();
      this.lastResumed = null;
      await this.push({ role: 'user', content: [{ type: 'text', text: identityBlock(this.identity) }, ...mail.blocks] }, mail.cursor);
      return true;
    } else if (w.kind === 'task') {
      if (!(await this.enterTask(w.task))) return false;
      this.lastResumed = w.how === 'resumed' ? w.task.id : null;
      this.taskInHand = w.task.id;
      await this.env.team.roster.patch(this.name, { current_task: w.task.id });
      // The task alone: mail that came while it was being handed over may change what to do
      // with it ("leave task 3 to bob"), so it is read on its own, after the first tool round.
      await this.push({ role: 'user', content: taskPrompt(this.identity, w.task, w.how) });
    }
    return true;
  }

  /** Its plan was decided but the answer's mail is not here yet: it waits for the mail, not the board. */
  private async answerComing(unread: readonly Message[]): Promise<boolean> {
    const id = this.awaitedPlan;
    const r = id ? await this.env.team.requests.get(id).catch(() => undefined) : undefined;
    if (r && answerInTransit(r, unread)) return true;
    this.awaitedPlan = null;
    return false;
  }

  /** Mail first, then its own task, then the lowest claimable task, else wait. */
  private async idleWait(): Promise<Wake> {
    const team = this.env.team;
    let started = Date.now();
    for (;;) {
      this.poked = false;
      if (this.stopped) return { kind: 'stopped' };
      const mail = await team.mailbox.unread(this.name, this.inboxPosition());
      // Notices (a merge that landed) need nothing from it: read with the next mail or task, never a wake alone.
      const wakers = mail.messages.filter((m) => !(m as { notice?: boolean }).notice);
      // Waiting for its plan's answer, it wakes for that (or a shutdown, or the lead's or user's word) alone.
      const gate = await planGate(team, this.name);
      if (!gate.open && gate.pending) this.awaitedPlan = gate.pending.request_id;
      const waiting = awaitingAnswer(gate) || (await this.answerComing(mail.messages));
      if (wakers.length && (!waiting || wakers.some(wakesPlanWaiter))) return { kind: 'mail' };
      // With the key rejected, work from the board would only fail again: mail still wakes it.
      const canWork = !waiting && !this.env.keys.rejected(this.model.provider ?? 'anthropic');
      // Only its own tasks are copied: the board may hold thousands, and every change wakes it.
      const board = canWork ? await team.tasks.select((t) => t.owner === this.name && t.status !== 'completed') : [];
      const own = board.find((t) => t.owner === this.name && t.status === 'in_progress');
      // While its plan awaits an answer the board is not read (canWork): a resume now would only be refused.
      if (own && own.id !== this.lastResumed) return { kind: 'task', task: own, how: 'resumed' };
      if (canWork && !own) {
        // A task reserved for it by name (task_create with owner) comes before the free ones.
        for (const t of board.filter((t) => t.owner === this.name && t.status === 'pending' && !t.blockedBy.length && !this.unworkable.has(t.id))) {
          const r = await team.tasks.claim(t.id, this.name);
          if (r.ok) return { kind: 'task', task: r.task, how: 'reserved' };
        }
        const task = await team.tasks.nextWorkFor(this.name, this.unworkable);
        if (task) return { kind: 'task', task, how: 'auto' };
      }
      const s = this.env.settings();
      // A background job it started (a long test) is work it waits for: its end is mail that
      // wakes it. The idle clock starts again when the job ends (jobs.ts JOB_WAITED_FOR_MS).
      // So is its branch in the merge queue: a failure comes back to it to fix, a landing asks it to shut down (queue-notes.ts).
      if (this.env.jobs.waitedFor((o) => o === this.name) || (await this.branchQueued())) started = Date.now();
      const timeoutMs = s.idleTimeoutSeconds * 1000;
      const left = timeoutMs > 0 ? timeoutMs - (Date.now() - started) : Infinity;
      if (left <= 0) return { kind: 'timeout' };
      // Mail, a task change or a stop arrived during the checks above: look again at once.
      if (this.poked) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, s.idlePollSeconds * 1000));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Whether its branch has an entry in the merge queue not settled yet. */
  private async branchQueued(): Promise<boolean> {
    if (this.env.settings().idleTimeoutSeconds <= 0) return false;
    return (await this.env.mergeQueue.list().catch(() => [])).some((e) => e.teammate === this.name && isOpen(e));
  }

  /** Shutdown or stop: in-progress tasks go back to pending; the roster says shutdown. */
  private async finish(end: 'stopped' | 'shutdown'): Promise<void> {
    if (this.suspended) return;
    await this.env.processes.killAll(this.name);
    // Its container stops (its work brought back first); it stays, with its clone, for a restart.
    const lost = await this.env.containers.stop(this.name).catch((e: Error) => e.message);
    if (lost) this.env.emit({ type: 'notice', level: 'error', agent: this.name, message: `${this.name}: its container: ${lost}` });
    await this.env.team.retireMember(this.name);
    this.setActivity({ kind: 'stopped' });
    this.env.emit({ type: 'notice', level: 'info', agent: this.name, message: end === 'stopped' ? `${this.name} was stopped.` : `${this.name} shut down.` });
    // The lead asked for a shutdown and hears the answer; a stop by the user it would not.
    if (end === 'stopped') await this.tellLead(`${this.name} was stopped by the user; its in-progress tasks went back to the board.`, true);
  }
}
