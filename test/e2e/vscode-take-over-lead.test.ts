// Take Over Lead (README.md, "One lead per workspace") in a real VS Code: window A's lead is
// in a turn when its browser is killed. code-server keeps A's backend (its extension host)
// alive for a reconnection, so the lead's lease stays live and nothing moves it on its own.
// A new window shows the lead as run in another window, offers Take Over Lead on its row,
// and after one confirmation runs the lead within 30 s; A's lead stops (its model request is
// dropped) and one message makes one model call: never two leads.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, shaped, startFakeApi, type FakeApi } from '../fake-api';
import { openWorkbench, type Workbench } from './harness/browser';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';
const ASK = 'Plan the release.';
const ANSWER = 'Release plan: ship on Friday.';
const MORE = 'One more thing: update the changelog.';

describe('VS Code: Take Over Lead from a window whose browser was killed', () => {
  let api: FakeApi;
  let workspace: string;
  let suite: SuiteWorkbench | undefined;
  let second: Workbench | undefined;

  before(async () => {
    api = await startFakeApi();
    let first = true;
    api.setDefault((r) => {
      if (r.agent !== 'lead') return 'ok';
      const last = newest(r);
      if (last.includes(MORE)) return reply('Changelog noted.');
      // Window A's turn never ends: it is in flight when its browser dies.
      if (first) {
        first = false;
        return shaped('Thinking about the release', { stallAfter: 1 });
      }
      return reply(ANSWER);
    });
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-take-over-'));
    suite = await openSuiteWorkbench('take-over-lead', { workspace, apiUrl: api.url, apiKey: 'sk-ant-take-over-key' });
  });

  after(async () => {
    await second?.close();
    await suite?.close();
    await api?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  const lease = async () => (JSON.parse(await readFile(join(workspace, '.team', 'config.json'), 'utf8')) as { lead?: { host?: { id: string; heartbeat_at: number } | null } }).lead?.host;
  const leaseBeat = async () => (await lease())?.heartbeat_at ?? 0;
  const leadHost = async () => (await lease())?.id;

  it('a new window takes the lead over within 30 s; the old backend\'s lead stops', async () => {
    const a = suite!.wb;
    let wb: Workbench = a;
    try {
      await a.runCommand('Agent Teams: Ask Lead');
      await a.answer('What should the team do?', ASK);
      await until('window A\'s lead in its turn', async () => api.requests('lead').length === 1, 60_000);
      const hostA = await until('window A holds the lead', leadHost, 10_000);

      await a.kill();
      const opened = Date.now();
      second = await openWorkbench(suite!.server.url);
      wb = second;
      await second.openContainer('Agent Teams');
      const remote = second.treeRow(CONTAINER, 'lead, Lead, idle, in another window');
      await remote.waitFor({ timeout: 90_000 });
      const offered = Date.now();
      // A's backend lives on: its lead is still in its turn, and it still renews the lease
      // (so the lead is never adopted on its own).
      assert.equal(api.requests('lead')[0]!.disconnectedAt, undefined, 'window A\'s request still open');
      const beat = await leaseBeat();
      await until('window A renews the lease', async () => (await leaseBeat()) > beat, 15_000);
      assert.equal(await leadHost(), hostA);
      await remote.hover();
      await remote.locator('.action-label[aria-label="Take Over Lead"]').click();
      await second.dialog().getByRole('button', { name: 'Take Over Lead' }).click();
      await second.treeRow(CONTAINER, 'lead, Lead').filter({ hasNotText: 'in another window' }).first().waitFor({ timeout: 30_000 });
      await until('the lead\'s row no longer says another window', async () => (await remote.count()) === 0, 30_000);
      const tookMs = Date.now() - offered;
      const fromOpenMs = Date.now() - opened;
      console.log(`take over: ${tookMs} ms from the offer, ${fromOpenMs} ms from opening the new window`);
      assert.ok(tookMs < 30_000, `taken over in ${tookMs} ms`);
      assert.notEqual(await leadHost(), hostA, 'the lease is the new window\'s');

      // The old backend's lead stopped: its request is dropped; the new window carries the turn on.
      await until('window A\'s request dropped', async () => api.requests('lead')[0]!.disconnectedAt !== undefined, 30_000);
      await until('the new window\'s lead answered', async () => api.requests('lead').some((r) => r.outcome === 'reply' && JSON.stringify(r.body.messages).includes(ASK)), 30_000);
      assert.match(await readFile(join(workspace, '.team', 'transcripts', 'lead.jsonl'), 'utf8'), /ship on Friday/);

      // Never two leads: one message, one model call, and the lease stays here.
      const before = api.requests('lead').length;
      await second.runCommand('Agent Teams: Ask Lead');
      await second.answer('What should the team do?', MORE);
      await until('the lead read it', async () => api.requests('lead').some((r) => newest(r).includes(MORE)), 30_000);
      await new Promise((r) => setTimeout(r, 6_000)); // more than one heartbeat of the old backend
      assert.equal(api.requests('lead').length, before + 1, 'one model call for one message');
      assert.notEqual(await leadHost(), hostA);
      if (process.env.AGENT_TEAMS_E2E_SHOTS) await second.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, 'vscode-take-over-lead.png'));
    } catch (err) {
      return failureReport(err, { wb, server: suite!.server, api, workspace });
    }
  });
});
