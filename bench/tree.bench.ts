// tree.update_ms: a status change written by another process (this one, through the core)
// until the Team view's row shows it, in code-server + Chromium. The page stamps the moment a
// MutationObserver sees the row's new accessible label; both clocks are wall clocks on one
// machine. Target: < 200 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../test/e2e/harness/browser';
import { startCodeServer } from '../test/e2e/harness/code-server';
import { repoRoot } from '../test/e2e/harness/paths';
import { seedTeam } from '../test/vscode/seed-team';
import { bench, latency, note, wallMs } from './lib/report';

const SAMPLES = Number(process.env.TREE_BENCH_SAMPLES ?? 20);
const ROW = '[id="workbench.view.extension.agentTeams"] .monaco-list-row';

async function main(): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-bench-tree-'));
  const { team } = await seedTeam(workspace, { plan: false });
  const server = await startCodeServer({ extensionPath: repoRoot(), workspace });
  const wb = await openWorkbench(server.url);
  const samples: number[] = [];
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
  } finally {
    await wb.close();
    await server.stop();
    team.dispose();
    await rm(workspace, { recursive: true, force: true });
  }
  const l = latency(samples);
  note(`status write → row updated: p50 ${l.p50_ms.toFixed(1)} ms, p99 ${l.p99_ms.toFixed(1)} ms over ${samples.length} changes`);
  bench('tree.update_ms', 'ours', { ms: l.p50_ms, p50_ms: l.p50_ms, p99_ms: l.p99_ms, max_ms: l.max_ms, samples: samples.length });
}

main().catch((err) => { console.error(err); process.exit(1); });
