// agentTeams.confirmTeam in a real VS Code (code-server + Chromium, the packaged extension, the
// fake Messages API as the model): the lead's spawns of one reply come as one notification
// listing the whole team; Decline… asks what to change and the lead reads it in every spawn's
// result, nobody started; the changed team's Start starts it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi } from '../fake-api';
import type { Workbench } from './harness/browser';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';

describe('VS Code confirmTeam: the whole team in one notification, declined with a reason, then started', () => {
  const s = {
    workspace: '', api: undefined as FakeApi | undefined, vs: undefined as SuiteWorkbench | undefined, wb: undefined as Workbench | undefined,
  };
  before(async () => {
    s.api = await startFakeApi();
    s.workspace = await mkdtemp(join(tmpdir(), 'agent-teams-confirm-'));
    s.vs = await openSuiteWorkbench('confirm', {
      workspace: s.workspace, apiUrl: s.api.url, apiKey: 'sk-e2e-confirm',
      settings: { 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.confirmTeam': true },
    });
    s.wb = s.vs.wb;
  });
  after(async () => {
    await s.vs?.close();
    await s.api?.close();
    await rm(s.workspace, { recursive: true, force: true });
  });

  it('asks once for the team; Decline… tells the lead why and starts nobody; Start starts the changed team', async () => {
    const wb = s.wb!;
    const api = s.api!;
    try {
      const spawn = (name: string, role: string, extra: Record<string, unknown> = {}) => toolUse('spawn_teammate', { name, role, prompt: 'Work.', ...extra });
      api.script('lead',
        reply(spawn('amy', 'architect', { model: 'opus', plan_mode_required: true }), spawn('bob', 'tester', { model: 'haiku' })),
        reply(spawn('amy', 'architect', { plan_mode_required: true })),
        'Started.',
      );
      api.setDefault(reply(toolUse('idle', {})));
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('What should the team do?', 'Build the cache with a team.');

      const proposal = wb.notification('The lead proposes a team of 2');
      await proposal.first().waitFor({ timeout: 30_000 });
      const words = await proposal.first().textContent() ?? '';
      assert.match(words, /amy \(architect\) on claude-opus-4-5, planning first; bob \(tester\) on claude-haiku-4-5/);
      await proposal.first().getByRole('button', { name: 'Decline…', exact: true }).click();
      await wb.answer('What should the lead change?', 'one architect is enough');

      const told = await until('the lead read the refusal', async () => {
        const last = JSON.stringify(api.requests('lead')[1]?.body.messages.at(-1) ?? '');
        return /declined the proposed team/.test(last) ? last : undefined;
      }, 30_000);
      assert.match(told, /\(amy, bob\), saying: \\"one architect is enough\\"/);
      assert.equal(api.requests('amy').length + api.requests('bob').length, 0);

      const second = wb.notification('The lead proposes a teammate: amy (architect)');
      await second.first().waitFor({ timeout: 30_000 });
      await second.first().getByRole('button', { name: 'Start', exact: true }).click();
      await wb.treeRow(CONTAINER, 'amy').first().waitFor({ timeout: 30_000 });
      await until('amy asked the model', async () => api.requests('amy').length > 0, 30_000);
      const roster = JSON.parse(await readFile(join(s.workspace, '.team', 'config.json'), 'utf8')) as { members: { name: string }[] };
      assert.deepEqual(roster.members.map((m) => m.name), ['amy']);
      assert.equal(api.requests('bob').length, 0);
    } catch (err) {
      await failureReport(err, { ...s, server: s.vs?.server });
    }
  });
});
