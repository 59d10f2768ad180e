// A newcomer without an Anthropic key (README.md, Get Started: "Set a key or pick a model"):
// the Team view says what is missing and offers both ways out; once the user picks a model that
// needs no key (a `vscode:` chat model), the view offers Ask Lead instead and the walkthrough's
// first step is ticked — no key asked for. The setting is changed while the window is open, as
// a user does it, so the extension must follow the change (surface.ts, `agentTeams.canStart`).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { failureReport } from './harness/failure-report';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { until } from './harness/until';

const NO_KEY = 'No key for the team\'s model';
const NO_TEAM = 'No team yet. Ask the lead to start one.';

describe('VS Code: no key, then a model that needs none', () => {
  let workspace: string;
  let suite: SuiteWorkbench | undefined;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-no-key-'));
    suite = await openSuiteWorkbench('no-key', { workspace, apiKey: '' });
  });

  after(async () => {
    await suite?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('the Team view asks for a key or a model; picking a vscode: model offers Ask Lead and ticks the walkthrough\'s first step', async () => {
    const { wb, server } = suite!;
    // The Team view's welcome (the side bar's other views say nothing of keys or teams).
    const welcome = async () => ((await wb.page.locator('.part.sidebar').textContent({ timeout: 2_000 }).catch(() => '')) ?? '');
    try {
      await until('the Team view says no key', async () => (await welcome()).includes(NO_KEY) || undefined, 90_000);
      const text = await welcome();
      assert.match(text, /Set API Key/);
      assert.match(text, /Pick a Model/, 'the other way out is offered too');
      assert.ok(!text.includes(NO_TEAM));
      // The user picks a chat model VS Code has (no key needed), in their settings.
      const file = join(server.userDataDir, 'User', 'settings.json');
      const settings = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      await writeFile(file, JSON.stringify({ ...settings, 'agentTeams.model': 'vscode:copilot/gpt-4o' }, null, 2));
      await until('the Team view offers Ask Lead', async () => (await welcome()).includes(NO_TEAM) || undefined, 30_000);
      assert.ok(!(await welcome()).includes(NO_KEY), 'no key asked for');
      await wb.runCommand('Agent Teams: Get Started');
      const page = wb.page.locator('.gettingStartedContainer');
      await page.getByText('Set a key or pick a model').first().waitFor({ timeout: 30_000 });
      const box = (step: string) => page.locator(`.codicon[data-done-step-id="agent-teams.agent-teams#agentTeams.gettingStarted#${step}"]`);
      await until('the key-or-model step ticked', async () => (await box('key').getAttribute('aria-checked', { timeout: 1_000 }).catch(() => null)) === 'true' || undefined, 15_000);
      assert.notEqual(await box('firstRequest').getAttribute('aria-checked'), 'true', 'nothing asked yet');
    } catch (err) {
      return failureReport(err, { wb, server, api: undefined, workspace });
    }
  });
});
