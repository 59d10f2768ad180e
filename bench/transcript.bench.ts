// transcript.render_ms: the shipped transcript-panel bundle in Chromium, fed a 10,000-item
// transcript the way the host feeds it (the newest FIRST_ITEMS as the reset `items` message,
// then the older ones in `older` chunks), then single appended tool calls. Times run from
// posting to the frame after the DOM shows the rows; `all_ms` until the whole history is in
// (then the first item is scrolled to, as a check).
// transcript.delta_ms: a streamed text piece leaving a model server (an SSE server here that
// stamps each piece) → the real SDK client → the panel host's path (ItemBuilder, a `delta`
// message) → visible in the panel's DOM; wall clock on both sides of the same machine.
// transcript.memory: heap of a process holding 8 panels' worth of items (10,000 each), as the
// extension host does (each panel keeps only its builder's state; items live in the webview).
import * as esbuild from 'esbuild';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createModelClient } from '../src/core/model';
import { ItemBuilder } from '../src/core/watch/transcript-items';
import type { TranscriptItem } from '../src/shared/transcript-items';
import { FIRST_ITEMS, OLDER_CHUNK } from '../src/shared/transcript-protocol';
import { transcriptHtml } from '../src/vscode/webviews/transcript-html';
import { launchBrowser } from '../test/e2e/harness/browser';
import { repoRoot } from '../test/e2e/harness/paths';
import { bench, latency, note } from './lib/report';

const EVENTS = Number(process.env.TRANSCRIPT_BENCH_EVENTS ?? 10_000);
const RUNS = Number(process.env.TRANSCRIPT_BENCH_RUNS ?? 3);
const APPENDS = 20;
const PIECES = 200;

function item(i: number): TranscriptItem {
  switch (i % 5) {
    case 0: return { kind: 'text', key: `t${i}`, ts: 1_767_000_000 + i, text: `Step ${i}: I read **parser.ts** and will run \`npm test\` next.\n\n- case ${i}\n- line ${i % 97}` };
    case 1: return { kind: 'tool', key: `u${i}`, ts: 1_767_000_000 + i, tool: 'bash', input: JSON.stringify({ command: `npm test -- --grep case${i}` }), running: false, result: Array.from({ length: 30 }, (_, k) => `ok ${k} case ${i}`).join('\n') };
    case 2: return { kind: 'tool', key: `u${i}`, ts: 1_767_000_000 + i, tool: 'edit_file', input: JSON.stringify({ path: `src/p${i}.ts`, old_text: 'a', new_text: 'b' }), running: false, result: 'edited' };
    case 3: return { kind: 'mail_in', key: `m${i}`, ts: 1_767_000_000 + i, from: 'lead', type: 'message', content: `Please also cover case ${i}.` };
    default: return { kind: 'usage', key: `g${i}`, ts: 1_767_000_000 + i, input: 1200 + i, output: 80, cacheRead: 9000, cacheWrite: 0 };
  }
}

const STUB = `window.__posted = [];
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => {} });`;

async function bundle(): Promise<string> {
  const r = await esbuild.build({ entryPoints: [join(repoRoot(), 'src/webview/transcript.ts')], bundle: true, platform: 'browser',
    format: 'iife', target: 'es2022', minify: true, write: false, logLevel: 'warning' });
  return r.outputFiles[0]!.text;
}

/** The panel's body without the CSP head (the page is set from a string here). */
function body(): string {
  const html = transcriptHtml({ nonce: 'n', cspSource: 'x', script: 'about:blank', style: 'about:blank' });
  return html.slice(html.indexOf('<body>'), html.indexOf('<script'));
}

/** An SSE model server: one reply of PIECES text pieces, each stamped with when it was written. */
function sseServer(sent: number[]): Promise<{ url: string; close(): void }> {
  const ev = (res: import('node:http').ServerResponse, type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      ev(res, 'message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 0 } } });
      ev(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      for (let i = 0; i < PIECES; i++) {
        await new Promise((r) => setTimeout(r, 15));
        sent[i] = Date.now();
        ev(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` «${i}» word` } });
      }
      ev(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
      ev(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: PIECES } });
      ev(res, 'message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address() as import('node:net').AddressInfo;
    resolve({ url: `http://127.0.0.1:${a.port}`, close: () => server.close() });
  }));
}

/** A real collection before each heap reading (without it the figure is noise). */
function collector(): () => void {
  if (typeof global.gc === 'function') return global.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const kept: ItemBuilder[] = [];

async function memory(): Promise<void> {
  const gc = collector();
  gc();
  const before = process.memoryUsage().heapUsed;
  // Held by the module, not a local: V8 may collect a local it sees no later use of.
  const builders = kept;
  for (let p = 0; p < 8; p++) {
    const b = new ItemBuilder(`agent${p}`);
    for (let i = 0; i < EVENTS; i++) {
      const it = item(i);
      const content = it.kind === 'tool' ? [{ type: 'tool_use', id: it.key, name: it.tool, input: JSON.parse(it.input) }] : [{ type: 'text', text: it.kind === 'text' ? it.text : 'x' }];
      b.entry({ id: `e${p}-${i}`, kind: 'msg', message: { role: 'assistant', content } });
    }
    builders.push(b);
  }
  gc();
  const mb = (process.memoryUsage().heapUsed - before) / 1048576;
  bench('transcript.host_memory', 'ours', { panels: 8, events: EVENTS, heap_mb: Math.round(mb * 10) / 10, gc: true });
}

async function main(): Promise<void> {
  const [script, css] = await Promise.all([bundle(), readFile(join(repoRoot(), 'media', 'transcript.css'), 'utf8')]);
  const items = Array.from({ length: EVENTS }, (_, i) => item(i));
  const session = await launchBrowser();
  const initial: number[] = [];
  const complete: number[] = [];
  const appends: number[] = [];
  const deltas: number[] = [];
  try {
    const { page } = session;
    await page.setViewportSize({ width: 900, height: 900 });
    const fresh = async () => {
      await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head>${body()}</html>`);
      await page.addScriptTag({ content: STUB });
      await page.addScriptTag({ content: script });
      await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
      await page.evaluate(() => window.postMessage({ type: 'init', agent: 'alice', mode: 'normal', trusted: true, skippedBytes: 0 }, '*'));
    };
    for (let run = 0; run < RUNS; run++) {
      await fresh();
      const [first, all] = await page.evaluate(async ({ all, firstItems, chunk }) => {
        const painted = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const t0 = performance.now();
        const split = Math.max(0, all.length - firstItems);
        window.postMessage({ type: 'items', reset: true, items: all.slice(split) }, '*');
        // The host posts the older chunks right behind, yielding between them.
        void (async () => {
          for (let at = 0; at < split; at += chunk) {
            await new Promise((r) => setTimeout(r, 0));
            window.postMessage({ type: 'older', items: all.slice(at, Math.min(at + chunk, split)), done: at + chunk >= split }, '*');
          }
        })();
        while (!document.querySelector('.row')) await new Promise((r) => setTimeout(r, 0));
        document.body.getBoundingClientRect();
        await painted();
        const t1 = performance.now() - t0;
        const rows = document.getElementById('rows')!;
        while (rows.getAttribute('aria-busy') !== 'false') await new Promise((r) => setTimeout(r, 0));
        await painted();
        return [t1, performance.now() - t0];
      }, { all: items, firstItems: FIRST_ITEMS, chunk: OLDER_CHUNK });
      initial.push(first);
      complete.push(all);
      // The whole history is there: the top of the list is the first item.
      await page.evaluate(() => { document.getElementById('rows')!.scrollTop = 0; });
      await page.locator('.row[data-key="t0"]').waitFor({ timeout: 10_000 });
      // Back to the bottom (where appends scroll into view), until rows measured on the way settle.
      await page.waitForFunction(() => new Promise<boolean>((done) => {
        const r = document.getElementById('rows')!;
        r.scrollTop = r.scrollHeight;
        requestAnimationFrame(() => requestAnimationFrame(() => done(r.scrollTop + r.clientHeight >= r.scrollHeight - 4)));
      }), undefined, { timeout: 10_000, polling: 50 });
      for (let a = 0; a < APPENDS; a++) {
        const next = { ...item(EVENTS + a * 5 + 1), key: `new${run}-${a}` };
        appends.push(await page.evaluate(async (it) => {
          const painted = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
          const t0 = performance.now();
          window.postMessage({ type: 'items', reset: false, items: [it] }, '*');
          while (!document.querySelector(`.row[data-key="${it.key}"]`)) await new Promise((r) => setTimeout(r, 0));
          document.body.getBoundingClientRect();
          await painted();
          return performance.now() - t0;
        }, next));
      }
      note(`run ${run + 1}: initial ${initial.at(-1)!.toFixed(1)} ms, all ${complete.at(-1)!.toFixed(1)} ms, ${await page.locator('.row').count()} rows in the DOM of ${EVENTS}`);
    }

    // Deltas: real SDK client streaming from the SSE server, forwarded as the panel host does.
    await fresh();
    await page.evaluate((all) => window.postMessage({ type: 'items', reset: true, items: all }, '*'), items);
    await page.evaluate(() => {
      const w = window as unknown as { __seen: Record<number, number> };
      w.__seen = {};
      new MutationObserver(() => {
        const row = document.querySelector('.row.streaming');
        const text = row?.textContent ?? '';
        for (const m of text.matchAll(/«(\d+)»/g)) w.__seen[Number(m[1])] ??= Date.now();
      }).observe(document.getElementById('rows')!, { subtree: true, childList: true, characterData: true });
    });
    const sent: number[] = [];
    const server = await sseServer(sent);
    const client = createModelClient({ apiKey: 'sk-bench', baseURL: server.url, model: 'claude-sonnet-5-5', caching: false });
    const builder = new ItemBuilder('alice');
    const forwards: Promise<unknown>[] = [];
    await client.send({
      system: 's', tools: [], messages: [{ role: 'user', content: 'go' }], signal: new AbortController().signal,
      onText: (text, attempt) => {
        const c = builder.live({ type: 'text_delta', agent: 'alice', text, attempt })[0];
        if (c?.op !== 'put' || c.item.kind !== 'text') return;
        const msg = { type: 'delta', key: c.item.key, text, restart: c.item.text === text };
        forwards.push(page.evaluate((m) => window.postMessage(m, '*'), msg));
      },
    });
    await Promise.all(forwards);
    await page.waitForFunction((n) => Object.keys((window as unknown as { __seen: object }).__seen).length >= n, PIECES, { timeout: 10_000 });
    const seen = await page.evaluate(() => (window as unknown as { __seen: Record<number, number> }).__seen);
    for (let i = 0; i < PIECES; i++) deltas.push(seen[i]! - sent[i]!);
    server.close();
  } finally {
    await session.close();
  }
  const i = latency(initial);
  const c = latency(complete);
  const a = latency(appends);
  bench('transcript.render_ms', 'ours', { events: EVENTS, initial_ms: i.p50_ms, all_ms: c.p50_ms, append_ms: a.p50_ms, initial_max_ms: i.max_ms, append_p99_ms: a.p99_ms, runs: RUNS });
  const d = latency(deltas);
  bench('transcript.delta_ms', 'ours', { pieces: PIECES, p50_ms: d.p50_ms, p99_ms: d.p99_ms });
  await memory();
}

main().catch((err) => { console.error(err); process.exit(1); });
