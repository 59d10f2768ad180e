// The lead: runs a turn when the user asks, and — unless turned off — when teammates mail
// it while it is idle. Notices (maxRounds, idle) are read on the next turn but never wake
// it, so teammates and lead cannot ping-pong acknowledgements forever.
import { Agent } from './agent';

export class Lead extends Agent {
  readonly kind = 'lead' as const;
  private queue: { prompt: string; done: () => void }[] = [];
  private running: Promise<void> | null = null;
  private wakePending = false;

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

  /** Cancels the current turn (Ctrl-C); the lead can be asked again afterwards. */
  cancelTurn(): void {
    this.dropQueue();
    super.stop();
  }

  /** Ends whatever turn is running for good (host shutting down). */
  override stop(): void {
    this.dropQueue();
    this.wakePending = false;
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

  private drive(): void {
    if (this.running || this.closed) return;
    this.running = this.loop()
      .catch((err) => this.env.emit({ type: 'notice', level: 'error', agent: 'lead', message: `lead: ${(err as Error).message}` }))
      .finally(() => {
        this.running = null;
        // Work queued while the loop was deciding to stop.
        if (this.queue.length || this.wakePending) this.drive();
      });
  }

  private async loop(): Promise<void> {
    for (;;) {
      const woken = this.wakePending;
      this.wakePending = false;
      const mail = await this.takeMail();
      const next = this.queue.shift();
      if (next === undefined && !(woken && mail.wakes)) {
        // Mail that landed while this read was under way: read again rather than drop the wake.
        if (this.wakePending) continue;
        return;
      }
      this.rearm();
      const content = [...mail.blocks, ...(next ? [{ type: 'text' as const, text: next.prompt }] : [])];
      try {
        await this.push({ role: 'user', content }, mail.count ? mail.cursor : undefined);
        const end = await this.runPhase(this.env.settings().maxRounds);
        if (end === 'max_rounds') {
          this.env.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead stopped after ${this.env.settings().maxRounds} model calls (maxRounds).` });
        }
      } finally {
        next?.done();
      }
      if (this.closed) return;
    }
  }
}
