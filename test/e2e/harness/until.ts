// Polling for a condition the page or the workspace files reach on their own time.

/** Resolves with `fn`'s first value that is neither undefined nor false; throws after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    const v = await fn().catch((e: unknown) => { last = e; return undefined; });
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`not in time: ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
