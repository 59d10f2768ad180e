// Team state in words and numbers, the same in every host: an agent's activity, token
// totals (the lead's read through its roster schema), and spend with prices from
// core/runtime/pricing.ts. VS Code's tree and status bar and the CLI's tables use these.
import type { Member, TeamConfig, Usage } from '../../shared/schemas';
import { parseModelId } from '../model/provider-id';
import { estimateCost, formatCost } from '../runtime/pricing';
import type { Activity } from '../runtime/types';
import { teamTotal, usageTotal } from '../runtime/usage';

export { usageTotal };

/** The lead's usage, kept in the roster's top-level `lead` record. */
export function leadUsage(config: TeamConfig | undefined): Usage | undefined {
  return config?.lead?.usage;
}

/** Tokens the whole team spent: every member's and the lead's. */
export function teamTokens(config: TeamConfig | undefined): number {
  return config ? teamTotal(config) : 0;
}

export function formatTokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k tokens`;
  return `${(n / 1_000_000).toFixed(1)}M tokens`;
}

/** "16k tokens · $0.05", or undefined before any token was spent; "usage unknown" where the provider reported none. */
export function spendWords(u: Usage | undefined, model: string): string | undefined {
  const tokens = usageTotal(u);
  const unknown = u?.unreported ? 'usage unknown' : undefined;
  if (!tokens) return unknown;
  return `${formatTokens(tokens)}${unknown ? ` + ${unknown}` : ''} · ${formatCost(estimateCost(model, u))}`;
}

/** What an agent's provider lacks, said where the agent is shown (docs/models.md); undefined for Anthropic. */
export function providerLacks(id: string): string | undefined {
  const p = parseModelId(id);
  if (!p.ok) return p.error;
  if (p.provider === 'openai') return 'no prompt caching; token usage only where the server reports it; price unknown';
  if (p.provider === 'vscode') return 'no prompt caching; VS Code reports no token usage; price unknown (your VS Code subscription)';
  return undefined;
}

/** An agent's model with its provider (docs/models.md): "gpt-4o (openai)", "claude-sonnet-4-5 (anthropic)". */
export function modelWords(id: string): string {
  const p = parseModelId(id);
  return p.ok ? `${p.model} (${p.provider})` : `${id} (unknown provider)`;
}

/** The estimated cost of the whole team ("$1.20 + price unknown" when some spend is on a model we cannot price). */
export function teamCost(config: TeamConfig | undefined, defaultModel: string): string {
  const members = config?.members ?? [];
  const costs = [estimateCost(defaultModel, leadUsage(config)), ...members.map((m) => estimateCost(m.model ?? defaultModel, m.usage))];
  return formatCost({ usd: costs.reduce((n, c) => n + c.usd, 0), known: costs.every((c) => c.known) });
}

/** Fine-grained activity in words, when it says more than the roster status. */
export function activityWords(a: Activity | undefined): string | undefined {
  switch (a?.kind) {
    case 'requesting': return 'thinking';
    case 'streaming': return 'writing';
    case 'retrying': return `retrying in ${Math.ceil(a.inMs / 1000)} s (${a.reason})`;
    case 'tool': return `running ${a.tool}`;
    case 'waiting-approval': return `waiting for approval: ${a.what}`;
    case 'paused': return `paused: ${a.reason}`;
    case 'error': return `error: ${a.message}`;
    case 'remote': return `remote: host ${a.host}`;
    default: return undefined;
  }
}

/** Who holds a member's lease: `host <id> (pid <pid> on <hostname>)`, or '' when nobody does. */
export function hostLabel(m: Pick<Member, 'host'>): string {
  const h = m.host;
  if (!h) return '';
  return `host ${h.id} (pid ${h.pid}${h.hostname ? ` on ${h.hostname}` : ''})`;
}
