// tree.update_ms: a status change written by another process (this one, through the core)
// until the Team view's row shows it, in code-server + Chromium. The page stamps the moment a
// MutationObserver sees the row's new accessible label; both clocks are wall clocks on one
// machine. Target: < 200 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench } from '../test/e2e/harness/browser';
import { startCodeServer } from '../test/e2e/harness/code-server';
import { repoRoot } from '../test/e2e/harness/paths';
import { seedTeam } from '../test/vscode/seed-team';
import { bench, latency, note, wallMs } from './lib/report';

const SAMPLES = Number(process.env.TREE_BENCH_SAMPLES ?? 20);
const ROW = '[id="workbench.view.extension.agentTeams"] .monaco-list-row';

const NOOP_WRITES = 10;

/** DOM mutations inside the Team view's rows while `act` runs. */
async function countRowMutations(page: Page, act: () => Promise<void>): Promise<number> {
  await page.evaluate((sel) => {
    const w = window as unknown as { __rowMutations?: number };
    w.__rowMutations = 0;
    const list = document.querySelector(sel)?.closest('.monaco-list');
    new MutationObserver((records) => { w.__rowMutations! += records.length; })
      .observe(list ?? document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  }, ROW);
  await act();
  return page.evaluate(() => (window as unknown as { __rowMutations: number }).__rowMutations);
}

async function main(): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-bench-tree-'));
  const { team } = await seedTeam(workspace, { plan: false });
  const server = await startCodeServer({ extensionPath: repoRoot(), workspace });
  const wb = await openWorkbench(server.url);
  const samples: number[] = [];
  let noopWrites = 0;
  let noopMutations = 0;
  try {
    await wb.openContainer('Agent Teams');
    await wb.treeRow('agentTeams', 'bob, tester, idle').waitFor();
    for (let i = 0; i < SAMPLES; i++) {
      const status = i % 2 ? 'idle' : 'working';
      const label = `bob, tester, ${status}`;
      await wb.page.evaluate(([sel, want]) => {
        const w = window as unknown as { __treeHit?: Promise<number> };
        w.__treeHit = new Promise<number>((resolve) => {
          const hit = () => !!document.querySelector(`${sel}[aria-label^="${want}"]`);
          const mo = new MutationObserver(() => {
            if (hit()) { mo.disconnect(); resolve(performance.timeOrigin + performance.now()); }
          });
          mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
        });
      }, [ROW, label] as const);
      const t0 = wallMs();
      await team.roster.setStatus('bob', status);
      const seen = await wb.page.evaluate(() => (window as unknown as { __treeHit: Promise<number> }).__treeHit);
      samples.push(seen - t0);
      await new Promise((r) => setTimeout(r, 150));
    }
    noopWrites = NOOP_WRITES;
    noopMutations = await countRowMutations(wb.page, async () => {
      // What a lease heartbeat does every 5 s: rewrite the roster, nothing shown changed.
      for (let i = 0; i < NOOP_WRITES; i++) {
        await team.roster.update((c) => { (c as unknown as Record<string, unknown>).beat_at = Date.now(); });
        await new Promise((r) => setTimeout(r, 150));
      }
      await new Promise((r) => setTimeout(r, 500));
    });
  } finally {
    await wb.close();
    await server.stop();
    team.dispose();
    await rm(workspace, { recursive: true, force: true });
  }
  const l = latency(samples);
  note(`status write → row updated: p50 ${l.p50_ms.toFixed(1)} ms, p99 ${l.p99_ms.toFixed(1)} ms over ${samples.length} changes`);
  note(`${noopWrites} roster writes that change nothing shown → ${noopMutations} DOM mutations in the Team view's rows (a redraw is dozens)`);
  bench('tree.noop_redraw', 'ours', { writes: noopWrites, row_mutations: noopMutations });
  bench('tree.update_ms', 'ours', { ms: l.p50_ms, p50_ms: l.p50_ms, p99_ms: l.p99_ms, max_ms: l.max_ms, samples: samples.length });
}

main().catch((err) => { console.error(err); process.exit(1); });
