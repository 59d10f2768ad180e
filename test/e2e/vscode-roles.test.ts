// Roles in a real VS Code (code-server + Chromium, the packaged extension, the fake Messages
// API as the model): Spawn Teammate offers the workspace's agent definitions in a quick pick;
// the teammate spawned from one runs on its model and in plan mode, its Team row says
// "planning — waiting for approval" while its write is refused — as does the header of its
// transcript panel — and Approve in the plan's notification lets the write through.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi } from '../fake-api';
import type { Workbench } from './harness/browser';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { until } from './harness/until';
import { repoRoot } from './harness/paths';

const CONTAINER = 'agentTeams';

describe('VS Code roles: spawn from a definition, plan mode, approve from the notification', () => {
  const s = {
    workspace: '', api: undefined as FakeApi | undefined, vs: undefined as SuiteWorkbench | undefined, wb: undefined as Workbench | undefined,
  };
  before(async () => {
    s.api = await startFakeApi();
    s.workspace = await mkdtemp(join(tmpdir(), 'agent-teams-roles-'));
    await mkdir(join(s.workspace, '.claude', 'agents'), { recursive: true });
    await writeFile(join(s.workspace, '.claude', 'agents', 'architect.md'),
      '---\nname: architect\ndescription: Designs before anyone builds\nmodel: opus\n---\nARCHITECT-RULES: write design.md only.\n');
    s.vs = await openSuiteWorkbench('roles', { workspace: s.workspace, apiUrl: s.api.url, apiKey: 'sk-e2e-roles', settings: { 'agentTeams.toolApproval.bash': 'allow' } });
    s.wb = s.vs.wb;
  });
  after(async () => {
    await s.vs?.close();
    await s.api?.close();
    await rm(s.workspace, { recursive: true, force: true });
  });

  it('spawns from the quick pick, holds the write until the plan is approved from its notification', async () => {
    const wb = s.wb!;
    const api = s.api!;
    try {
      api.script('ari',
        reply(toolUse('write_file', { path: 'design.md', content: 'too soon' })),
        reply(toolUse('plan_approval', { plan: '1. write design.md' })),
        reply(toolUse('idle', {})),
        reply(toolUse('write_file', { path: 'design.md', content: '# design\n' })),
        reply(toolUse('idle', {})),
      );
      await wb.runCommand('Agent Teams: Spawn Teammate');
      // One input for name and role (a role naming a definition uses it), the instructions,
      // then the choices menu: toggle plan first, and Enter on its first row.
      await wb.answer('Spawn Teammate', 'ari: architect');
      await wb.answer('Spawn ari: first instructions', 'Design the cache.');
      await wb.asked('Spawn ari: Enter to start');
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'from architect' }).first().waitFor();
      await wb.pick('Spawn ari: Enter to start', 'Plan first');
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'plans first' }).first().waitFor();
      await wb.pick('Spawn ari: Enter to start', 'Spawn ari');

      await wb.treeRow(CONTAINER, 'planning — waiting for approval').first().waitFor({ timeout: 30_000 });
      // Its transcript panel says so in its header, in the same words.
      // A click that lands while the tree redraws the row is lost on a loaded machine: clicked again until the panel opens.
      let clickedAt = 0;
      const header = await until('the transcript panel of ari', async () => {
        for (const f of wb.page.frames()) if (await f.locator('#activity').count().catch(() => 0)) return f.locator('#activity');
        if (Date.now() - clickedAt > 5_000) {
          clickedAt = Date.now();
          await wb.treeRow(CONTAINER, 'ari, architect').first().click().catch(() => undefined);
        }
        return undefined;
      });
      await until('the panel says planning', async () => /planning — waiting for approval/.test(await header.textContent() ?? ''), 30_000);
      // Looked at by a person (issue: screenshots of a transcript and the plan review): test/.tmp.
      const shots = join(repoRoot(), 'test', '.tmp');
      await mkdir(shots, { recursive: true });
      await wb.screenshot(join(shots, 'transcript.png'));
      const first = await until('ari asked the model', async () => api.requests('ari')[0]);
      assert.equal((first.body as { model: string }).model, 'claude-opus-4-5');
      assert.match(JSON.stringify(first.body.system), /ARCHITECT-RULES/);
      await until('the write refused', async () => /a plan must be approved first/.test(JSON.stringify(api.requests('ari')[1]?.body.messages.at(-1) ?? '')));
      await assert.rejects(readFile(join(s.workspace, 'design.md'), 'utf8'));

      // Review Plan shows the plan as a document, its words and not a request id in the picker.
      await wb.runCommand('Agent Teams: Review Plan');
      await wb.asked('Review Plan');
      const planRow = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'ari: 1. write design.md' }).first();
      await planRow.waitFor();
      assert.doesNotMatch(await planRow.textContent() ?? '', /req_/);
      await wb.quickInput().press('Enter');
      await wb.page.locator('.monaco-editor .view-lines', { hasText: 'write design.md' }).first().waitFor({ timeout: 30_000 });
      await wb.screenshot(join(shots, 'plan-review.png'));
      // The plan took the transcript's place in the editor group: its tab shows the panel again (a new frame).
      await wb.page.locator('.tabs-container .tab', { hasText: 'ari · transcript' }).first().click();
      const panel = async () => {
        for (const f of wb.page.frames()) if (await f.locator('#activity').count().catch(() => 0)) return f.locator('#activity');
        return undefined;
      };

      const toast = wb.notification('ari submitted a plan');
      // On a loaded machine the steps above outlast the toast, which VS Code then hides into the notification center.
      await until('the plan\'s notification', async () => {
        if (await toast.isVisible().catch(() => false)) return true;
        await wb.showNotificationCenter().catch(() => undefined);
        return undefined;
      }, 30_000);
      await toast.getByRole('button', { name: 'Approve', exact: true }).click();
      await until('design.md written after approval', async () => (await readFile(join(s.workspace, 'design.md'), 'utf8').catch(() => '')) === '# design\n', 30_000);
      await until('the row no longer says planning', async () => (await wb.treeRow(CONTAINER, 'planning — waiting for approval').count()) === 0, 30_000);
      await until('the panel no longer says planning', async () => !/planning/.test(await (await panel())?.textContent().catch(() => null) ?? 'planning'), 30_000);
    } catch (err) {
      await failureReport(err, { ...s, server: s.vs?.server });
    }
  });
});
