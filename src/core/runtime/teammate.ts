// A teammate's life: spawn → working → idle → working … → shutdown (docs/file-formats.md, "Requests" and "Tasks").
// Idle is event-driven: mail or a task-board change wakes it within milliseconds (file
// watching), a slow poll is only the fallback, and an idle teammate makes no model calls.
import type { Task } from '../../shared/team-schemas';
import type { Disposable } from '../team/dir-watcher';
import { Agent, type PhaseEnd } from './agent';
import { identityBlock, taskPrompt } from './prompts';
import { planGate, planRefusal, PLANNING_WORDS } from '../roles/plan-mode';

type Wake = { kind: 'mail' } | { kind: 'task'; task: Task; resumed: boolean } | { kind: 'timeout' } | { kind: 'stopped' };

export class Teammate extends Agent {
  readonly kind = 'teammate' as const;
  private wake: (() => void) | null = null;
  private subs: Disposable[] = [];
  /** Last own task we resumed without any other news, to avoid re-prompting it forever. */
  private lastResumed: number | null = null;
  /** The task it was last given (claimed or resumed). */
  private taskInHand: number | null = null;
  done: Promise<void> = Promise.resolve();
  /** Where this teammate works when its task names no worktree. */
  private readonly homeDir = this.cwd;

  override async planGateOpen(): Promise<boolean> {
    return (await planGate(this.env.team, this.name)).open;
  }

  /** Read from the files on every call: a request_plan from any host counts from the next call. */
  override async planRefusal(tool: string): Promise<string | null> {
    const gate = await planGate(this.env.team, this.name);
    if (gate.open) return null;
    this.env.emit({ type: 'notice', level: 'info', agent: this.name, message: `${this.name}: ${PLANNING_WORDS} (${tool} refused).` });
    return planRefusal(tool, gate);
  }

  /** Starts the life loop; `initial` is the spawn prompt (absent when resuming). */
  start(initial: string | null, resumeIdle: boolean): void {
    this.done = this.live(initial, resumeIdle).catch(async (err) => {
      // Nothing runs it any more: no ghost that looks idle while holding its tasks.
      if (!this.suspended) {
        await this.env.processes.killAll(this.name).catch(() => undefined);
        await this.env.team.retireMember(this.name).catch(() => undefined);
      }
      this.setActivity({ kind: 'stopped' });
      this.env.emit({
        type: 'notice', level: 'error', agent: this.name,
        message: `${this.name} crashed: ${(err as Error).message}. Its tasks went back to the board; spawn it again to continue.`,
      });
    });
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

  /** The member's own model (spawned with one), else the team's setting. */
  modelOverride: string | undefined;

  /** The host is going away (reload): stop without shutting down, to resume elsewhere. */
  suspend(): void {
    this.suspended = true;
    this.stop();
  }

  private async live(initial: string | null, resumeIdle: boolean): Promise<void> {
    const team = this.env.team;
    this.subs.push(await team.mailbox.subscribe(this.name, this.poke));
    this.subs.push(await team.watcher.watchDir(team.paths.tasksDir, this.poke));
    try {
      if (initial !== null) await this.push({ role: 'user', content: `${identityBlock(this.identity)}\n${initial}` });
      let needsWork = !resumeIdle && this.messages[this.messages.length - 1]?.role === 'user';
      for (;;) {
        let end: PhaseEnd | null = null;
        if (needsWork) {
          // Not awaited: the model call need not wait for the roster write. Roster writes
          // from this process are applied in call order, so the later 'idle' still wins.
          team.roster.patch(this.name, { status: 'working' }).catch(() => undefined);
          end = await this.runPhase(this.env.settings().maxRounds);
          if (end === 'stopped' || end === 'shutdown') return await this.finish(end);
          await this.afterPhase(end);
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
          return await this.finish('shutdown');
        }
        await this.deliverWake(w);
        needsWork = true;
      }
    } finally {
      for (const s of this.subs) s.dispose();
      this.subs = [];
    }
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

  private async deliverWake(w: Wake): Promise<void> {
    if (w.kind === 'mail') {
      const mail = await this.takeMail();
      this.lastResumed = null;
      await this.push({ role: 'user', content: [{ type: 'text', text: identityBlock(this.identity) }, ...mail.blocks] }, mail.cursor);
    } else if (w.kind === 'task') {
      this.lastResumed = w.resumed ? w.task.id : null;
      this.taskInHand = w.task.id;
      await this.env.team.roster.patch(this.name, { current_task: w.task.id });
      this.setWorkdir(w.task.worktree ? await this.env.worktreeDir(w.task.worktree) : this.homeDir);
      const mail = await this.takeMail();
      await this.push(
        { role: 'user', content: [{ type: 'text', text: taskPrompt(this.identity, w.task, w.resumed) }, ...mail.blocks] },
        mail.count ? mail.cursor : undefined,
      );
    }
  }

  /** Mail first, then its own task, then the lowest claimable task, else wait. */
  private async idleWait(): Promise<Wake> {
    const team = this.env.team;
    const started = Date.now();
    for (;;) {
      this.poked = false;
      if (this.stopped) return { kind: 'stopped' };
      const mail = await team.mailbox.unread(this.name, this.inboxPosition());
      if (mail.messages.length) return { kind: 'mail' };
      // With the key rejected, work from the board would only fail again: mail still wakes it.
      const canWork = !this.env.keyRejected();
      const own = canWork ? (await team.tasks.list()).find((t) => t.owner === this.name && t.status === 'in_progress') : undefined;
      if (own && own.id !== this.lastResumed) return { kind: 'task', task: own, resumed: true };
      if (canWork && !own) {
        const task = await team.tasks.nextWorkFor(this.name);
        if (task) return { kind: 'task', task, resumed: false };
      }
      const s = this.env.settings();
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

  /** Shutdown or stop: in-progress tasks go back to pending; the roster says shutdown. */
  private async finish(end: 'stopped' | 'shutdown'): Promise<void> {
    if (this.suspended) return;
    await this.env.processes.killAll(this.name);
    await this.env.team.retireMember(this.name);
    this.setActivity({ kind: 'stopped' });
    this.env.emit({ type: 'notice', level: 'info', agent: this.name, message: end === 'stopped' ? `${this.name} was stopped.` : `${this.name} shut down.` });
  }
}
