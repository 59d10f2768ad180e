// Where a new teammate's container goes when the team has several engines (docs/containers.md):
// the reachable engine running the fewest of the product's containers, first listed on a tie.
import type { Engine } from './engine';
import { labelFilter } from './labels';

export interface HostLoad {
  url: string;
  /** The product's running containers there (every team's); absent: not reachable. */
  running?: number;
  error?: string;
}

/** The least busy reachable host, or undefined when none answered. Pure. */
export function leastBusy(loads: readonly HostLoad[]): string | undefined {
  let best: HostLoad | undefined;
  for (const l of loads) if (l.running !== undefined && (best === undefined || l.running < best.running!)) best = l;
  return best?.url;
}

/** How busy each host is now (in parallel; an unreachable one says why). */
export async function measureLoads(hosts: readonly string[], engine: (url: string) => Promise<Engine>, timeoutMs = 5000): Promise<HostLoad[]> {
  return Promise.all(hosts.map(async (url) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const e = await engine(url);
      const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); });
      const list = await Promise.race([e.listContainers({ filters: { ...labelFilter(), status: ['running'] } }), late]);
      return { url, running: list.length };
    } catch (err) {
      return { url, error: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }));
}
