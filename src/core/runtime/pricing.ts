// Approximate cost of an agent's usage, so every teammate's spend can be shown. Prices are
// list prices in USD per million tokens by model family; cache reads cost 10% of input and
// cache writes 125% (5-minute TTL). Unknown models are priced as Sonnet and marked estimated.
import type { Usage } from '../../shared/team-schemas';

interface Price {
  input: number;
  output: number;
}

const FAMILIES: [RegExp, Price][] = [
  [/haiku/, { input: 1, output: 5 }],
  [/opus-4-[01]|opus-4$|opus-4-2/, { input: 15, output: 75 }],
  [/opus/, { input: 5, output: 25 }],
  [/sonnet/, { input: 3, output: 15 }],
];

export interface Cost {
  usd: number;
  /** False when the model's family is unknown and Sonnet prices were assumed. */
  known: boolean;
}

export function estimateCost(model: string | undefined, u: Partial<Usage> | undefined): Cost {
  const hit = FAMILIES.find(([re]) => re.test(model ?? ''));
  const p = hit?.[1] ?? { input: 3, output: 15 };
  const usd =
    ((u?.input ?? 0) * p.input + (u?.output ?? 0) * p.output + (u?.cache_read ?? 0) * p.input * 0.1 + (u?.cache_write ?? 0) * p.input * 1.25) / 1e6;
  return { usd, known: !!hit };
}

export function formatCost(c: Cost): string {
  const s = c.usd < 0.01 && c.usd > 0 ? '<$0.01' : `$${c.usd.toFixed(2)}`;
  return c.known ? s : `≈${s}`;
}
