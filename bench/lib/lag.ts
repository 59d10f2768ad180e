// Event-loop lag sampled by a short timer: how late each tick fires (wall clock), grouped
// per second so a periodic stall shows as a bad second rather than vanishing in a p99.

export interface LagSampler {
  /** Every tick's lateness in ms. */
  readonly ticks: number[];
  /**
   * Per tick min(lateness, CPU this process used meanwhile): a block cannot last longer than
   * the CPU it burns, so this leaves out the time a loaded machine simply did not run us.
   */
  readonly blocked: number[];
  /** [second index, lateness] per tick. */
  readonly bySecond: number[][];
  stop(): void;
}

export function sampleLag(intervalMs = 2): LagSampler {
  const ticks: number[] = [];
  const blocked: number[] = [];
  const bySecond: number[][] = [];
  const t0 = performance.now();
  let running = true;
  const schedule = () => {
    const expected = performance.now() + intervalMs;
    const cpu0 = process.cpuUsage();
    setTimeout(() => {
      const now = performance.now();
      const lag = Math.max(0, now - expected);
      const cpu = process.cpuUsage(cpu0);
      ticks.push(lag);
      blocked.push(Math.min(lag, (cpu.user + cpu.system) / 1000));
      (bySecond[Math.floor((now - t0) / 1000)] ??= []).push(lag);
      if (running) schedule();
    }, intervalMs);
  };
  schedule();
  return { ticks, blocked, bySecond, stop: () => void (running = false) };
}
