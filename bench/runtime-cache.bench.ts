// runtime.cache (issue 3, SPEC §8): a 30-round teammate loop — each round one read_file call
// returning ~1.5 KB — with prompt caching on and off. The fake API simulates Anthropic's
// prefix cache from the request's cache_control breakpoints; cached_fraction is the share
// of prompt tokens (input + cache read + cache write) served from cache. Target ≥ 0.9 on.
// Besides the fraction, the bench checks what caching relies on: that every request's
// prefix (tools, system, earlier messages) is byte-identical to the previous request's
// whole prompt, with cache_control removed — and says where the first difference is if not.
// Tunables (env): BENCH_RT_CACHE_ROUNDS (30).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bench, note, round } from './lib/report';
import { cachedFraction, reply, toolUse, type FakeApi, type RecordedRequest } from '../test/fake-api';
import { allIdle, inProcessApi, noteMachine, startRuntime, until } from './fixtures/runtime-common';

const ROUNDS = process.env.BENCH_RT_CACHE_ROUNDS ? Number(process.env.BENCH_RT_CACHE_ROUNDS) : 30;
const AGENT = 'cachy';

/** JSON of `v` in its own key order, with every cache_control removed (what must stay stable). */
function bytes(v: unknown): string {
  return JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x));
}

/** Each message as a list of blocks (the API treats a string as one text block). */
function blocksOf(m: { role: string; content: unknown }): unknown {
  return { role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content };
}

interface Stability {
  stable: boolean;
  /** Requests whose prefix differs from the previous request (1-based), with where. */
  breaks: string[];
  /** Differences that vanish once string content is read as one text block. */
  stringVsBlock: number;
}

/** Is request k+1's prompt an extension of request k's, byte for byte (minus cache_control)? */
function checkPrefixes(reqs: RecordedRequest[]): Stability {
  const breaks: string[] = [];
  let stringVsBlock = 0;
  for (let k = 1; k < reqs.length; k++) {
    const a = reqs[k - 1]!.body;
    const b = reqs[k]!.body;
    if (bytes(a.tools) !== bytes(b.tools)) breaks.push(`#${k + 1}: tools differ`);
    if (bytes(a.system) !== bytes(b.system)) breaks.push(`#${k + 1}: system differs`);
    const n = a.messages.length;
    for (let i = 0; i < n; i++) {
      const x = a.messages[i];
      const y = b.messages[i];
      if (bytes(x) === bytes(y)) continue;
      if (y && bytes(blocksOf(x)) === bytes(blocksOf(y))) {
        stringVsBlock++;
        continue;
      }
      const sx = bytes(x);
      const sy = bytes(y);
      let at = 0;
      while (at < sx.length && sx[at] === sy?.[at]) at++;
      breaks.push(`#${k + 1}: message ${i} differs at char ${at}: ${JSON.stringify(sx.slice(Math.max(0, at - 40), at + 40))} vs ${JSON.stringify(sy?.slice(Math.max(0, at - 40), at + 40))}`);
      break;
    }
  }
  return { stable: breaks.length === 0, breaks, stringVsBlock };
}

async function run(caching: boolean): Promise<void> {
  const api: FakeApi = await inProcessApi();
  const ours = await startRuntime(api.url, { maxRounds: ROUNDS + 5 }, caching);
  try {
    await mkdir(join(ours.root, 'data'), { recursive: true });
    for (let i = 1; i < ROUNDS; i++) {
      const lines = Array.from({ length: 30 }, (_, j) => `round ${i} line ${j}: measurement ${(i * 7919 + j * 104729) % 100000} within tolerance`);
      await writeFile(join(ours.root, 'data', `r${i}.txt`), lines.join('\n') + '\n');
    }
    // ROUNDS model requests: ROUNDS-1 tool rounds, then `idle` (which ends the phase).
    for (let i = 1; i < ROUNDS; i++) api.script(AGENT, reply(`Reading part ${i}.`, toolUse('read_file', { path: `data/r${i}.txt` })));
    api.script(AGENT, reply('All parts read.', toolUse('idle', {})));
    await ours.rt.spawnTeammate({ name: AGENT, role: 'analyst', prompt: `Read data/r1.txt … data/r${ROUNDS - 1}.txt one at a time and summarise.` });
    await until(() => api.requests(AGENT).length >= ROUNDS, 60_000, `${ROUNDS} requests`);
    await allIdle(ours.rt, [AGENT]);
    const reqs = api.requests(AGENT);
    const u = api.usage(AGENT);
    const fraction = cachedFraction(u);
    const last = reqs.at(-1)!.usage!;
    const lastFraction = cachedFraction(last);
    const s = checkPrefixes(reqs);
    const breakpoints = reqs.map((r) => (JSON.stringify(r.body).match(/"cache_control"/g) ?? []).length);
    note(
      `caching ${caching ? 'on' : 'off'}: ${u.requests} requests, prompt tokens ${u.input + u.cacheRead + u.cacheWrite} ` +
        `(input ${u.input}, cache read ${u.cacheRead}, cache write ${u.cacheWrite}); cached fraction ${round(fraction, 3)}, ` +
        `last request ${round(lastFraction, 3)}; breakpoints per request ${Math.min(...breakpoints)}–${Math.max(...breakpoints)}`,
    );
    note(
      `  prefix byte-stable across rounds: ${s.stable ? 'yes' : 'NO'}` +
        (s.stringVsBlock ? ` (${s.stringVsBlock} messages switch between string and one-text-block form, equivalent for the API)` : ''),
    );
    for (const b of s.breaks.slice(0, 5)) note(`  ${b}`);
    // Per-round misses: a round that re-sends more than it added did not hit the cache.
    if (caching) {
      const misses = reqs.slice(1).filter((r) => (r.usage!.input + r.usage!.cacheWrite) > 0.5 * (r.usage!.input + r.usage!.cacheRead + r.usage!.cacheWrite));
      if (misses.length) note(`  requests mostly uncached: ${misses.map((r) => `#${reqs.indexOf(r) + 1}`).join(', ')}`);
    }
    bench('runtime.cache', 'ours', {
      caching, cached_fraction: fraction, rounds: u.requests, last_round_cached_fraction: lastFraction,
      prompt_tokens: u.input + u.cacheRead + u.cacheWrite, prefix_stable: s.stable,
    });
  } finally {
    await ours.close();
    await api.close();
  }
}

async function main(): Promise<void> {
  noteMachine();
  await run(true);
  await run(false);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
