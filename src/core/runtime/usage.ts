// Token accounting per agent, persisted with the roster (teammates in their member record,
// the lead in a top-level `lead` field), and the team budget derived from it.
import type { TeamConfig, Usage } from '../../shared/schemas';
import { leadRecord } from './lease';
import type { SendResult } from '../model';
import type { Roster } from '../team/roster';

export const ZERO_USAGE: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };

export function usageTotal(u: Partial<Usage> | undefined): number {
  return (u?.input ?? 0) + (u?.output ?? 0) + (u?.cache_read ?? 0) + (u?.cache_write ?? 0);
}

/** A count that is not a finite number adds nothing (a NaN would make the roster invalid). */
const n = (x: number | undefined): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

export function addUsage(u: Partial<Usage> | undefined, r: SendResult['usage']): Usage {
  return {
    ...ZERO_USAGE,
    ...u,
    input: n(u?.input) + n(r.input),
    output: n(u?.output) + n(r.output),
    cache_read: n(u?.cache_read) + n(r.cacheRead),
    cache_write: n(u?.cache_write) + n(r.cacheWrite),
    ...(r.unreported || u?.unreported ? { unreported: n(u?.unreported) + (r.unreported ? 1 : 0) } : {}),
  };
}

/** Adds one call's usage to `agent` and returns the team's new total. */
export async function recordUsage(roster: Roster, agent: string, r: SendResult['usage']): Promise<{ agent: number; team: number }> {
  return roster.update((config) => {
    let mine: Usage;
    if (agent === 'lead') {
      const lead = leadRecord(config);
      lead.usage = mine = addUsage(lead.usage, r);
    } else {
      const m = config.members.find((x) => x.name === agent);
      if (!m) return { agent: 0, team: teamTotal(config) };
      m.usage = mine = addUsage(m.usage, r);
    }
    return { agent: usageTotal(mine), team: teamTotal(config) };
  });
}

export function teamTotal(config: TeamConfig): number {
  return config.members.reduce((n, m) => n + usageTotal(m.usage), usageTotal(config.lead?.usage));
}
