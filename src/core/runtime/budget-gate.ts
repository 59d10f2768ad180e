// The team token budget (agentTeams.tokenBudget) as a gate before every model call: under
// the budget, or with none, a call goes at once; once spent, calls wait — said once, shown
// as "paused" — until the setting changes, and a stop ends the wait.
export class BudgetGate {
  private readonly waiters = new Set<() => void>();
  private noticed = false;

  /**
   * @param spent tokens the team has used so far (read fresh each time)
   * @param notice tells the user, once per exhaustion, that the team is paused
   */
  constructor(private readonly spent: () => Promise<number>, private readonly notice: (budget: number) => void) {}

  /** Resolves when a call may be made; rejects with an AbortError when `signal` stops the agent. */
  async wait(budget: () => number, onPause: () => void, signal: AbortSignal): Promise<void> {
    for (;;) {
      const b = budget();
      if (!b || (await this.spent()) < b) return;
      if (!this.noticed) {
        this.noticed = true;
        this.notice(b);
      }
      onPause();
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          this.waiters.delete(done);
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.waiters.delete(done);
          reject(Object.assign(new Error('stopped'), { name: 'AbortError' }));
        };
        // Stopped while the roster was being read: an abort listener added now would never fire.
        if (signal.aborted) return onAbort();
        this.waiters.add(done);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** The budget setting changed: waiting calls look again, and a new exhaustion is said again. */
  reopen(): void {
    this.noticed = false;
    for (const w of [...this.waiters]) w();
  }
}
