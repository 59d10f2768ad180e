// Approximate cost of an agent's usage, so every teammate's spend can be shown. Prices are
// list prices in USD per million tokens by model family; cache reads cost 10% of input and
// cache writes 125% (5-minute TTL). A model of no family we know (a proxy's custom name) has
// no price: it shows "price unknown" rather than a guess (docs/file-formats.md, "Agent definitions").
import type { Usage } from '../../shared/schemas';
import { parseModelId } from '../model/provider-id';

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
  /** False when some of it is of a model whose price is unknown: `usd` counts only the rest. */
  known: boolean;
}

export function estimateCost(model: string | undefined, u: Partial<Usage> | undefined): Cost {
  // Only Anthropic's models are priced: a `vscode:` model is paid for by the user's VS Code
  // subscription, an `openai:` endpoint by whatever it charges (docs/models.md).
  const p0 = parseModelId(model ?? '');
  const hit = p0.ok && p0.provider === 'anthropic' ? FAMILIES.find(([re]) => re.test(p0.model)) : undefined;
  // Nothing spent costs nothing, whatever the model.
  // (Calls whose usage went unreported spent something too.)
  if (!hit) return { usd: 0, known: !((u?.input ?? 0) + (u?.output ?? 0) + (u?.cache_read ?? 0) + (u?.cache_write ?? 0) + (u?.unreported ?? 0)) };
  const p = hit[1];
  const usd =
    ((u?.input ?? 0) * p.input + (u?.output ?? 0) * p.output + (u?.cache_read ?? 0) * p.input * 0.1 + (u?.cache_write ?? 0) * p.input * 1.25) / 1e6;
  return { usd, known: !!hit };
}

export function formatCost(c: Cost): string {
  const s = c.usd < 0.01 && c.usd > 0 ? '<$0.01' : `$${c.usd.toFixed(2)}`;
  if (c.known) return s;
  return c.usd > 0 ? `${s} + price unknown` : 'price unknown';
}
