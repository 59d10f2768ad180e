// Permission rules and background jobs through the packaged extension in code-server +
// Chromium, the model being the scripted fake API (docs/permissions.md, docs/tools.md):
// "Always allow `npm test:*`" writes the rule to the workspace settings, after which
// `npm test -- --watch=false` runs without asking while `npm test; touch x` still asks;
// a background job's end wakes the lead once.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest } from '../fake-api';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { allText, newest } from './harness/model-text';

const API_KEY = 'sk-ant-permissions-test-key';
const ASK = 'Run the test suite, then the watch-free run, then the compound one, then a background build.';
const WAIT_MS = 45_000;
const QUIET_MS = 4_000;
const count = (s: string, needle: string) => s.split(needle).length - 1;

/** The lead, answering from what each request's newest turn says. */
function lead(r: RecordedRequest) {
  const text = newest(r);
  if (text.includes(ASK)) return reply(toolUse('bash', { command: 'npm test' }));
  if (text.includes('TESTS-RAN') && count(allText(r), 'TESTS-RAN') <= 2) return reply(toolUse('bash', { command: 'npm test -- --watch=false' }));
  if (text.includes('TESTS-RAN')) return reply(toolUse('bash', { command: 'npm test; touch x' }));
  if (text.includes('The user denied this command.')) return reply(toolUse('bash', { command: 'sleep 1; echo BG-DONE', run_in_background: true }));
  if (text.includes('Started background job')) return 'Waiting for the build.';
  if (text.includes('[background job] job-1')) return 'The build is done.';
  return 'Noted.';
}

describe('VS Code permission rules and background jobs', () => {
  let api: FakeApi;
  let server: CodeServer;
  let wb: Workbench;
  let workspace = '';
  let vs: SuiteWorkbench | undefined;

  before(async () => {
    api = await startFakeApi();
    api.setDefault((r) => (r.agent === 'lead' ? lead(r) : 'unexpected'));
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-permissions-'));
    await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo TESTS-RAN' } }));
    vs = await openSuiteWorkbench('permissions', { workspace, apiUrl: api.url, apiKey: API_KEY, settings: { 'agentTeams.toolApproval.bash': 'ask' } });
    ({ server, wb } = vs);
  });

  after(async () => {
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('Always allow `npm test:*` lets `npm test -- --watch=false` run unasked, `npm test; touch x` still asks; a job wakes the lead once', async () => {
    try {
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK);
      const first = wb.notification('lead wants to run `npm test`');
      await first.waitFor({ timeout: WAIT_MS });
      await first.getByRole('button', { name: 'Always allow `npm test:*`', exact: true }).click();

      // The rule is in the workspace's settings, and the watch-free run went through unasked.
      await api.waitForRequest((r) => r.agent === 'lead' && count(allText(r), 'TESTS-RAN') >= 2, WAIT_MS);
      const settings = JSON.parse(await readFile(join(workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual(settings['agentTeams.permissions.allow'], ['Bash(npm test:*)']);
      assert.equal(await wb.notification('wants to run `npm test -- --watch=false`').count(), 0, 'not asked');

      // The compound command is asked about, with the reason; denied, it does not run.
      const compound = wb.notification('lead wants to run `npm test; touch x`');
      await compound.waitFor({ timeout: WAIT_MS });
      assert.match(await compound.innerText(), /`touch x` is not allowed by any rule/);
      await compound.getByRole('button', { name: 'Deny', exact: true }).click();
      await assert.rejects(stat(join(workspace, 'x')));

      // The background job (asked about like any command no rule covers) returns at once;
      // its end wakes the lead exactly once.
      const background = wb.notification('lead wants to run `sleep 1; echo BG-DONE`');
      await background.waitFor({ timeout: WAIT_MS });
      await background.getByRole('button', { name: 'Allow', exact: true }).click();
      await api.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('[background job] job-1'), WAIT_MS);
      await new Promise((r) => setTimeout(r, QUIET_MS));
      const wakes = api.requests('lead').filter((r) => newest(r).includes('[background job] job-1'));
      assert.equal(wakes.length, 1);
      assert.match(newest(wakes[0]!), /ended with exit code 0/);
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });
});
