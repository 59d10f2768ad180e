// Simulated prompt caching, close enough to the real API for a benchmark to measure how much
// of each prompt is served from cache.
//
// The prompt is the sequence tools → system → messages, flattened into blocks. A block with
// `cache_control` is a breakpoint. A prefix (everything up to and including a block) is
// identified by a hash of the canonical JSON of its blocks, with `cache_control` stripped so
// that moving a breakpoint never changes what an earlier prefix is. Like the real API:
// - a request reads the longest prefix some earlier request wrote, provided one of its own
//   breakpoints sits at or at most LOOKBACK blocks after that prefix's end;
// - it writes every breakpoint prefix; the tokens between the read prefix and its last
//   breakpoint are `cache_creation_input_tokens`, the rest after that is `input_tokens`.
// Token counts are approximate: one token per 4 characters of each block's JSON.
// There is no expiry (tests and benchmarks are far shorter than the real 5-minute TTL).
import { createHash } from 'node:crypto';

const LOOKBACK = 20;
export const MAX_BREAKPOINTS = 4;

interface FlatBlock { json: string; tokens: number; breakpoint: boolean }

export interface PromptAccount { input: number; cacheRead: number; cacheWrite: number }

/** JSON with sorted keys and every `cache_control` removed. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(strip(value));
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (key !== 'cache_control') out[key] = strip((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

export function approxTokens(json: string): number {
  return Math.ceil(json.length / 4);
}

function hasBreakpoint(block: unknown): boolean {
  return !!block && typeof block === 'object' && 'cache_control' in block && !!(block as { cache_control?: unknown }).cache_control;
}

/** The prompt as an ordered list of blocks, each tagged with where it sits. */
function flatten(body: Record<string, unknown>): FlatBlock[] {
  const out: FlatBlock[] = [];
  const push = (tag: unknown, block: unknown) => {
    const blockJson = canonicalJson(block);
    out.push({ json: canonicalJson(tag) + blockJson, tokens: approxTokens(blockJson), breakpoint: hasBreakpoint(block) });
  };
  if (Array.isArray(body.tools)) for (const tool of body.tools) push('tool', tool);
  const system = body.system;
  if (typeof system === 'string' && system) push('system', { type: 'text', text: system });
  else if (Array.isArray(system)) for (const blk of system) push('system', blk);
  if (Array.isArray(body.messages)) {
    body.messages.forEach((m: { role?: unknown; content?: unknown }, i: number) => {
      const tag = { m: i, role: m?.role };
      if (typeof m?.content === 'string') push(tag, { type: 'text', text: m.content });
      else if (Array.isArray(m?.content)) for (const blk of m.content) push(tag, blk);
    });
  }
  return out;
}

/** Counts breakpoints in a request body (the API rejects more than four). */
export function countBreakpoints(body: Record<string, unknown>): number {
  return flatten(body).filter((b) => b.breakpoint).length;
}

/** The prefix cache shared by all agents of one server, as the real cache is per organisation. */
export class PromptCacheSim {
  private written = new Set<string>();

  /** Accounts one request's input tokens and records the prefixes it writes. */
  account(body: Record<string, unknown>): PromptAccount {
    const blocks = flatten(body);
    const hash = createHash('sha256').update(String(body.model ?? ''));
    const hashes: string[] = [];
    const ends: number[] = []; // token count of the prefix ending at block i
    let total = 0;
    for (const b of blocks) {
      hash.update(b.json).update('\u0000');
      hashes.push(hash.copy().digest('hex'));
      total += b.tokens;
      ends.push(total);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    if (breakpoints.length === 0) return { input: total, cacheRead: 0, cacheWrite: 0 };

    let read = 0;
    for (let j = blocks.length - 1; j >= 0; j--) {
      if (!this.written.has(hashes[j])) continue;
      if (breakpoints.some((p) => p >= j && p - j <= LOOKBACK)) { read = ends[j]; break; }
    }
    const last = ends[breakpoints[breakpoints.length - 1]];
    for (const p of breakpoints) this.written.add(hashes[p]);
    const upTo = Math.max(read, last);
    return { input: total - upTo, cacheRead: read, cacheWrite: upTo - read };
  }

  clear(): void {
    this.written.clear();
  }
}
