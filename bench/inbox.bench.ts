// inbox.render_ms: the shipped inbox webview bundle in Chromium, fed a 10,000-message thread
// the way the host feeds it (one `messages` snapshot), then one new message. Times run from
// posting to the frame after the DOM shows the messages (layout forced, next paint reached).
// Target: < 300 ms. A fresh page per run; the update is timed several times per page.
import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchBrowser } from '../test/e2e/harness/browser';
import { repoRoot } from '../test/e2e/harness/paths';
import type { Message } from '../src/shared/schemas';
import { bench, latency, note } from './lib/report';

const MESSAGES = Number(process.env.INBOX_BENCH_MESSAGES ?? 10_000);
const RUNS = Number(process.env.INBOX_BENCH_RUNS ?? 5);
const UPDATES = 10;

function message(i: number): Message {
  const from = i % 2 ? 'alice' : 'lead';
  const to = i % 2 ? 'lead' : 'alice';
  const content = `Step ${i}: updated **parser.ts** and ran \`npm test\`.\n\n- ${i} cases pass\n- next: edge cases for line ${i % 97}`;
  return { id: `m${i}`, type: 'message', from, to, content, timestamp: 1_700_000_000 + i };
}

const STUB = `window.__posted = [];
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => {} });`;

async function shippedBundle(): Promise<string> {
  const r = await esbuild.build({ entryPoints: [join(repoRoot(), 'src/webview/inbox.ts')], bundle: true, platform: 'browser',
    format: 'iife', target: 'es2022', minify: true, write: false, logLevel: 'warning' });
  return r.outputFiles[0]!.text;
}

async function main(): Promise<void> {
  const [script, css] = await Promise.all([shippedBundle(), readFile(join(repoRoot(), 'media', 'inbox.css'), 'utf8')]);
  const thread = Array.from({ length: MESSAGES }, (_, i) => message(i));
  const session = await launchBrowser();
  const initial: number[] = [];
  const updates: number[] = [];
  try {
    const { page } = session;
    await page.setViewportSize({ width: 420, height: 900 });
    for (let run = 0; run < RUNS; run++) {
      await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head><body><main id="app"></main></body></html>`);
      await page.addScriptTag({ content: STUB });
      await page.addScriptTag({ content: script });
      await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
      initial.push(await page.evaluate(async (messages) => {
        const painted = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const t0 = performance.now();
        window.postMessage({ type: 'messages', reset: true, messages }, '*');
        while (!document.querySelector('article.msg')) await new Promise((r) => setTimeout(r, 0));
        document.body.getBoundingClientRect();
        await painted();
        return performance.now() - t0;
      }, thread));
      for (let u = 0; u < UPDATES; u++) {
        const next = message(MESSAGES + run * UPDATES + u);
        updates.push(await page.evaluate(async (m) => {
          const painted = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
          const t0 = performance.now();
          window.postMessage({ type: 'messages', reset: false, messages: [m] }, '*');
          while (!document.querySelector(`article.msg[data-id="${m.id}"]`)) await new Promise((r) => setTimeout(r, 0));
          document.body.getBoundingClientRect();
          await painted();
          return performance.now() - t0;
        }, next));
      }
      note(`run ${run + 1}: initial ${initial.at(-1)!.toFixed(1)} ms, ${await page.locator('article.msg').count()} cards in the DOM`);
    }
  } finally {
    await session.close();
  }
  const i = latency(initial);
  const u = latency(updates);
  bench('inbox.render_ms', 'ours', { messages: MESSAGES, initial_ms: i.p50_ms, update_ms: u.p50_ms, initial_max_ms: i.max_ms, update_p99_ms: u.p99_ms, runs: RUNS });
}

main().catch((err) => { console.error(err); process.exit(1); });
