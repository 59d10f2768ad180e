// Event-loop lag sampled by a short timer: how late each tick fires (wall clock), grouped
// per second so a periodic stall shows as a bad second rather than vanishing in a p99.

export interface LagSampler {
  /** Every tick's lateness in ms. */
  readonly ticks: number[];
  /** [second index, lateness] per tick. */
  readonly bySecond: number[][];
  stop(): void;
}

export function sampleLag(intervalMs = 2): LagSampler {
  const ticks: number[] = [];
  const bySecond: number[][] = [];
  const t0 = performance.now();
  let running = true;
  const schedule = () => {
    const expected = performance.now() + intervalMs;
    setTimeout(() => {
      const now = performance.now();
      const lag = Math.max(0, now - expected);
      ticks.push(lag);
      (bySecond[Math.floor((now - t0) / 1000)] ??= []).push(lag);
      if (running) schedule();
    }, intervalMs);
  };
  schedule();
  return { ticks, bySecond, stop: () => void (running = false) };
}
