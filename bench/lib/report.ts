// Result reporting shared by every benchmark: the machine-readable `BENCH {json}` line of
// SPEC §8 plus small statistics helpers, so each bench reports figures the same way.

export type Impl = 'ours' | 'naive';

/** Figures are plain numbers (unit in the key, e.g. `p99_ms`), or a few flags/labels. */
export type Figures = Record<string, number | boolean | string>;

/** Rounds to `digits` decimals so BENCH lines stay readable and diff-friendly. */
export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Prints one `BENCH {"name", "impl", ...figures}` line (the line the tooling parses). */
export function bench(name: string, impl: Impl, figures: Figures): void {
  const out: Record<string, unknown> = { name, impl };
  for (const [k, v] of Object.entries(figures)) out[k] = typeof v === 'number' ? round(v, 3) : v;
  // One write per line: several benches may stream through the same runner pipe.
  process.stdout.write(`BENCH ${JSON.stringify(out)}\n`);
}

/**
 * The p-th percentile (0..100) by nearest rank on a sorted copy. Nearest rank (not
 * interpolation) so a p99 over few samples is an observed value, never an invented one.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export interface LatencySummary {
  samples: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
}

/** p50/p99/max/mean of millisecond samples, in the SPEC's figure names. */
export function latency(samplesMs: readonly number[]): LatencySummary {
  const mean = samplesMs.reduce((a, b) => a + b, 0) / Math.max(1, samplesMs.length);
  return {
    samples: samplesMs.length,
    p50_ms: percentile(samplesMs, 50),
    p99_ms: percentile(samplesMs, 99),
    max_ms: percentile(samplesMs, 100),
    mean_ms: mean,
  };
}

/**
 * Wall-clock milliseconds with sub-millisecond resolution that are comparable across
 * processes on one machine (timeOrigin is an absolute epoch time), unlike performance.now()
 * alone, whose zero is each process's start. Used to time a send in one process against a
 * callback in another.
 */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Human-readable progress/context line, kept apart from BENCH lines by its prefix. */
export function note(text: string): void {
  process.stdout.write(`  ${text}\n`);
}
