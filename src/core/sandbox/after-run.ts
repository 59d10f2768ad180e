// The checks after sandboxed commands (docs/security.md, "Nested repositories"), one at a
// time per checkout. Every command that ends is followed by a check that starts after it
// ended; commands that end while one waits to start share it (it sees what they all did),
// and one that ends while a check runs gets the next. The check (a `git ls-files` and a
// bounded walk) starts on a later turn of the event loop, not on the command's way back.

/** What one check does: `agents` are those whose commands ended before it started. */
export type CheckFn = (checkout: string, agents: readonly string[]) => Promise<void>;

export class AfterRunChecks {
  /** Per checkout: the check not started yet, with the agents it answers for. */
  private readonly waiting = new Map<string, Set<string>>();
  /** Per checkout: the last check queued (running or waiting). */
  private readonly last = new Map<string, Promise<void>>();
  private readonly all = new Set<Promise<void>>();

  constructor(private readonly check: CheckFn) {}

  /** `agent`'s command in `checkout` has ended. */
  request(agent: string, checkout: string): void {
    const joined = this.waiting.get(checkout);
    if (joined) { joined.add(agent); return; }
    const agents = new Set([agent]);
    this.waiting.set(checkout, agents);
    const before = this.last.get(checkout) ?? Promise.resolve();
    const run = before.then(() => new Promise<void>((r) => setImmediate(r))).then(() => {
      this.waiting.delete(checkout);
      return this.check(checkout, [...agents]);
    }).catch(() => undefined);
    this.last.set(checkout, run);
    this.all.add(run);
    void run.finally(() => {
      this.all.delete(run);
      if (this.last.get(checkout) === run) this.last.delete(checkout);
    });
  }

  /** Resolves once every check asked for so far is done. */
  async settled(): Promise<void> {
    while (this.all.size) await Promise.all([...this.all]);
  }
}
