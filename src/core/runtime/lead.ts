// The lead: runs a turn when the user asks, and — unless turned off — when teammates mail
// it while it is idle. Notices (maxRounds, idle) are read on the next turn but never wake
// it one by one, so teammates and lead cannot ping-pong acknowledgements forever: they come
// with the quiet team's wake, which also brings the work left undone (quiet-team.ts).
// When its turns end, the quiet watch looks again (onRest).
import { isDiskFull } from '../util/io-faults';
import { waitForDisk } from './disk-pause';
import { Agent } from './agent';

export class Lead extends Agent {
  readonly kind = 'lead' as const;
  private queue: { prompt: string; done: () => void }[] = [];
  private running: Promise<void> | null = null;
  private wakePending = false;
  private resumePending = false;

  /**
   * After a reload or crash: a turn the host left in the middle (the conversation ends with
   * the user's side: a question, tool results) is carried on. Turns the user stopped or that
   * hit maxRounds end with a note of it, so they are not.
   */
  resumeTurn(): void {
    if (this.messages[this.messages.length - 1]?.role !== 'user') return;
    this.resumePending = true;
    this.drive();
  }

  /** Queues the user's words and runs turns until the queue is empty. */
  ask(prompt: string): Promise<void> {
    return new Promise<void>((done) => {
      this.queue.push({ prompt, done });
      this.drive();
    });
  }

  /** Mail arrived for the lead; starts a turn if it carries anything but notices. */
  onMail(): void {
    if (!this.env.settings().wakeLeadOnMail) return;
    this.wakePending = true;
    this.drive();
  }

  /**
   * The team went quiet with mail the lead was not woken for (results, notices) or with work
   * left (quiet-team.ts): a turn opening with `note`, then all of the mail.
   */
  onQuiet(note: string, workLeft: boolean): void {
    if (!this.env.settings().wakeLeadOnMail) return;
    this.quietPending = { note, workLeft };
    this.drive();
  }

  private quietPending: { note: string; workLeft: boolean } | null = null;

  /** Called when the lead's turns have ended and nothing else is queued for it (the quiet watch looks again). */
  onRest: (() => void) | null = null;

  /** Cancels the current turn (Ctrl-C); the lead can be asked again afterwards. */
  cancelTurn(): void {
    this.stopNote = 'The user stopped this turn.';
    this.dropQueue();
    super.stop();
  }

  /** Another host runs the lead now: stop here, leaving the conversation for it to carry on. */
  protected override loseLease(): void {
    this.handOver();
  }

  handOver(): void {
    this.stopNote = null;
    this.resumePending = false;
    this.dropQueue();
    super.stop();
  }

  /** What a stopped turn records in the conversation (null: nothing, it is to be carried on). */
  private stopNote: string | null = null;

  /** Ends whatever turn is running for good (host shutting down); a stop the user asked for first still counts. */
  override stop(): void {
    this.dropQueue();
    this.wakePending = false;
    this.quietPending = null;
    this.closed = true;
    super.stop();
  }

  private closed = false;

  private dropQueue(): void {
    for (const q of this.queue.splice(0)) q.done();
  }

  get busy(): boolean {
    return this.running !== null;
  }

  private turning = false;
  /** In a turn (model calls under way): its system prompt must not change (the prompt cache). */
  get inTurn(): boolean {
    return this.turning;
  }

  private drive(): void {
    if (this.running || this.closed) return;
    this.running = this.loop()
      .catch((err) => this.failed(err))
      .finally(() => {
        this.running = null;
        // Work queued while the loop was deciding to stop.
        if (this.queue.length || this.wakePending || this.resumePending || this.quietPending !== null) this.drive();
        else if (!this.closed) this.onRest?.();
      });
  }

  /** A full disk pauses the lead and then carries its turn on (see disk-pause.ts). */
  private async failed(err: unknown): Promise<void> {
    if (!isDiskFull(err) || this.closed) {
      this.env.emit({ type: 'notice', level: 'error', agent: 'lead', message: `lead: ${(err as Error).message}` });
      return;
    }
    this.setActivity({ kind: 'paused', reason: 'disk full' });
    await waitForDisk(this.env, err, () => this.closed);
    if (this.closed) return;
    await this.restore().catch(() => undefined);
    this.setActivity({ kind: 'idle' });
    this.resumePending = true;
    this.wakePending = true;
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.resumePending) {
        this.resumePending = false;
        // Mail may have woken the lead first and carried the interrupted turn on already.
        if (this.messages[this.messages.length - 1]?.role !== 'user') continue;
        this.rearm();
        this.env.emit({ type: 'notice', level: 'info', agent: 'lead', message: 'The lead carries on with the turn that was interrupted.' });
        await this.phase();
        if (this.closed) return;
        continue;
      }
      const woken = this.wakePending;
      const quiet = this.quietPending;
      this.wakePending = false;
      this.quietPending = null;
      const mail = await this.takeMail();
      const next = this.queue.shift();
      // Woken for news the lead has read meanwhile (a turn in between): nothing to say.
      const forQuiet = quiet !== null && (quiet.workLeft || mail.count > 0) ? quiet.note : null;
      if (next === undefined && !(woken && mail.wakes) && forQuiet === null) {
        // Mail that landed while this read was under way: read again rather than drop the wake.
        if (this.wakePending || this.quietPending !== null) continue;
        return;
      }
      this.rearm();
      const content = [...(forQuiet !== null ? [{ type: 'text' as const, text: forQuiet }] : []), ...mail.blocks, ...(next ? [{ type: 'text' as const, text: next.prompt }] : [])];
      try {
        await this.push({ role: 'user', content }, mail.count ? mail.cursor : undefined);
        await this.phase();
      } finally {
        next?.done();
      }
      if (this.closed) return;
    }
  }

  /** One turn's work; a turn the user stopped or that hit maxRounds says so in the conversation. */
  private async phase(): Promise<void> {
    const rounds = this.env.settings().maxRounds;
    this.stopNote = null;
    this.turning = true;
    const end = await this.stopGated(['Stop'], rounds).finally(() => (this.turning = false));
    // Not left "running bash" after a cancel; an error stays in view until the next turn.
    if (end === 'stopped' || end === 'max_rounds') this.setActivity({ kind: 'idle' });
    if (end === 'max_rounds') {
      this.env.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead stopped after ${rounds} model calls (maxRounds).` });
    }
    // A stop by the user is noted even if the host closes right after; a host going away or
    // handing the lead over leaves the turn to be carried on.
    const note = end === 'stopped' ? this.stopNote : end === 'max_rounds' ? `Stopped after ${rounds} model calls (maxRounds).` : null;
    this.stopNote = null;
    if (note) await this.push({ role: 'assistant', content: [{ type: 'text', text: `(${note})` }] });
  }
}
