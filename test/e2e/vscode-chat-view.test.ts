// The Chat view with no other AI extension (docs/models.md, "Models for the Chat view"): the
// packaged extension in code-server with AI features on offers its own models (vendor
// `agent-teams`, the user's Anthropic key, the fake Messages API behind it); the user opens
// the Chat view, picks an Agent Teams model, asks `@team` something that makes the lead run a
// command, and sees the lead's answer streamed with its progress line.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, shaped, startFakeApi, toolUse, type FakeApi } from '../fake-api';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';
import { repoRoot } from './harness/paths';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { until } from './harness/until';

const API_KEY = 'sk-ant-chat-view-key';
const ASK = 'Count the files here.';
const ANSWER = 'There are 2 files in the workspace.';

describe('VS Code: the Chat view with Agent Teams models only', () => {
  let api: FakeApi;
  let workspace: string;
  let suite: SuiteWorkbench | undefined;
  const shots = join(repoRoot(), 'test', '.tmp');

  before(async () => {
    api = await startFakeApi();
    api.setDefault((r) => {
      if (r.agent !== 'lead') return 'ok';
      const last = newest(r);
      if (last.includes(ASK)) return reply('Let me look.', toolUse('bash', { command: 'sleep 3; ls -1 | wc -l' }));
      return shaped(reply(ANSWER), { delayMs: 400 });
    });
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-chat-view-'));
    await mkdir(shots, { recursive: true });
    suite = await openSuiteWorkbench('chat-view', {
      workspace, apiUrl: api.url, apiKey: API_KEY,
      settings: { 'chat.disableAIFeatures': false, 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.sandbox.autoAllow': true },
    });
  });

  after(async () => {
    await suite?.close();
    await api?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('opens the Chat view, picks an Agent Teams model, and @team streams the lead\'s answer with its progress', async () => {
    const wb = suite!.wb;
    const page = wb.page;
    try {
      await wb.runCommand('Chat: Open Chat');
      const chat = page.locator('.interactive-session').first();
      await chat.waitFor({ timeout: 60_000 });
      // The model picker lists the models the key reaches, under Agent Teams.
      const picker = chat.locator('.chat-input-toolbars .action-label', { hasText: /Models|claude/ }).first();
      // The picker lists the models the key reaches, as Agent Teams'; the team's model is found by search.
      await until('an Agent Teams model picked', async () => {
        // A menu left open by an earlier try (its block takes every click) is closed first.
        const block = page.locator('.context-view-block').first();
        if (await block.isVisible().catch(() => false)) await block.click({ position: { x: 5, y: 5 }, timeout: 2_000 }).catch(() => page.keyboard.press('Escape'));
        await picker.click({ timeout: 5_000 });
        const search = page.getByPlaceholder('Search models');
        if (!(await search.isVisible({ timeout: 3_000 }).catch(() => false))) {
          await wb.screenshot(join(shots, 'chat-view-picker.png'));
          await page.keyboard.press('Escape');
          return undefined;
        }
        await search.fill('sonnet-5-5');
        const row = page.locator('.monaco-list-row', { hasText: 'claude-sonnet-5-5' }).filter({ hasText: 'Agent Teams' }).first();
        await row.waitFor({ timeout: 5_000 });
        await wb.screenshot(join(shots, 'chat-view-picker.png'));
        await row.click();
        return true;
      }, 60_000);
      await until('the picker shows the Agent Teams model', async () => ((await picker.textContent()) ?? '').includes('sonnet-5') || undefined, 20_000);
      // Ask @team; collect what the response shows while it streams (progress lines are transient).
      await chat.locator('.interactive-input-editor').first().click();
      await page.keyboard.type(`@team ${ASK}`, { delay: 20 });
      await page.keyboard.press('Enter');
      const seen = new Set<string>();
      const status = page.locator('.statusbar-item', { hasText: / working, \d+ idle/ }).first();
      const response = chat.locator('.interactive-item-container.interactive-response').last();
      await until('the lead\'s answer in the Chat view', async () => {
        const text = (await response.textContent({ timeout: 1_000 }).catch(() => '')) ?? '';
        for (const line of text.split(/(?<=`)|\n/)) if (line.trim()) seen.add(line.trim());
        if (text.includes('lead is running')) seen.add('PROGRESS');
        if (/\b1 working\b/.test((await status.textContent({ timeout: 500 }).catch(() => '')) ?? '')) seen.add('LEAD COUNTED');
        return text.includes(ANSWER) || undefined;
      }, 90_000);
      await wb.screenshot(join(shots, 'chat-view-answer.png'));
      const text = (await response.textContent()) ?? '';
      assert.ok(seen.has('PROGRESS'), `a progress line "lead is running …" was shown; saw: ${[...seen].join(' | ').slice(0, 1500)}`);
      assert.match(text, /Let me look\./, 'the lead\'s first words streamed too');
      assert.ok(seen.has('LEAD COUNTED'), 'the status bar counted the working lead ("1 working")');
      // The lead ran the command through the real runner, on the team's model (the fake API).
      const lead = api.requests('lead');
      assert.ok(lead.length >= 2, `the lead called the model twice (got ${lead.length})`);
    } catch (err) {
      return failureReport(err, { wb, server: suite!.server, api, workspace });
    }
  });

  // Opened after the key was known and the lead had run: VS Code creates its walkthrough service
  // only now, so the ticks come from the extension (src/vscode/host/walkthrough.ts).
  it('Agent Teams: Get Started opens the walkthrough: key, first request, watching, approving, the merge queue; the key, first request and watching (the Team view was open) are ticked', async () => {
    const wb = suite!.wb;
    try {
      await wb.runCommand('Agent Teams: Get Started');
      const page = wb.page.locator('.gettingStartedContainer');
      await page.getByText('Get Started with Agent Teams').first().waitFor({ timeout: 30_000 });
      for (const step of ['Set a key or pick a model', 'Make your first request', 'Watch the team', 'Approve what matters', 'Land the work through the merge queue']) {
        await page.getByText(step).first().waitFor({ timeout: 10_000 });
      }
      // A step's checkbox: `.codicon[data-done-step-id=<extension>#<walkthrough>#<step>]`, `aria-checked` and class `complete` when done.
      const box = (step: string) => page.locator(`.codicon[data-done-step-id="agent-teams.agent-teams#agentTeams.gettingStarted#${step}"]`);
      const ticked = async (step: string) => (await box(step).getAttribute('aria-checked', { timeout: 1_000 })) === 'true';
      await until('the key, first-request and watch steps ticked', async () => (await ticked('key')) && (await ticked('firstRequest')) && (await ticked('watch')), 15_000)
        .catch(async (err: unknown) => {
          await wb.screenshot(join(shots, 'walkthrough.png'));
          const states = await page.locator('.codicon[data-done-step-id]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-done-step-id')}: ${e.className} aria-checked=${e.getAttribute('aria-checked')}`));
          throw new Error(`${(err as Error).message}; the steps: ${states.join(' | ')}`);
        });
      assert.match((await box('key').getAttribute('class')) ?? '', /\bcomplete\b/, 'the key step shows as complete');
      assert.match((await box('firstRequest').getAttribute('class')) ?? '', /\bcomplete\b/, 'the first-request step shows as complete');
      // Nothing approved or queued yet: those stay open.
      assert.equal(await ticked('approve'), false, 'the approve step is not ticked');
      assert.equal(await ticked('mergeQueue'), false, 'the merge-queue step is not ticked');
      await wb.screenshot(join(shots, 'walkthrough.png'));
    } catch (err) {
      return failureReport(err, { wb, server: suite!.server, api, workspace });
    }
  });
});
