// The command sandbox through the packaged extension in code-server + Chromium, the model
// being the scripted fake API (docs/security.md): with toolApproval.bash = ask and no rules, a
// command runs unasked because it runs in the sandbox; a command reaching a host nobody
// allowed (a local HTTP server standing in for one) raises a notification, and "Always allow"
// lets it through and writes the host to the workspace's agentTeams.sandbox.allowedDomains.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest } from '../fake-api';
import { detectEngine } from '../../src/core/sandbox/engine';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';

const ASK = 'Check where commands run, then fetch the page.';
const WAIT_MS = 60_000;

describe('VS Code command sandbox', () => {
  let api: FakeApi;
  let server: CodeServer;
  let wb: Workbench;
  let site: Server;
  let port = 0;
  let workspace = '';
  let vs: SuiteWorkbench | undefined;
  let skip = '';

  /** The lead, answering from what each request's newest turn says. */
  function lead(r: RecordedRequest) {
    const text = newest(r);
    if (text.includes(ASK)) return reply(toolUse('bash', { command: 'echo "RAN-IN-$(tr \'\\0\' \'\\n\' </proc/1/cmdline | head -1 | xargs basename)"' }));
    if (text.includes('RAN-IN-')) return reply(toolUse('bash', { command: `curl -s -m 30 http://127.0.0.1:${port}/` }));
    if (text.includes('hello-from-the-host')) return 'Fetched.';
    return 'Noted.';
  }

  before(async () => {
    const engine = await detectEngine();
    if (!engine.engine) { skip = `no sandbox on this machine: ${engine.reason}`; return; }
    site = createServer((_req, res) => res.end('hello-from-the-host'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    port = (site.address() as AddressInfo).port;
    api = await startFakeApi();
    api.setDefault((r) => (r.agent === 'lead' ? lead(r) : 'unexpected'));
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-sandbox-e2e-'));
    vs = await openSuiteWorkbench('sandbox', { workspace, apiUrl: api.url, apiKey: 'sk-ant-sandbox-test-key', settings: { 'agentTeams.toolApproval.bash': 'ask', 'agentTeams.sandbox.autoAllow': true } });
    ({ server, wb } = vs);
  });

  after(async () => {
    await vs?.close();
    await api?.close();
    await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('a sandboxed command runs unasked; a new host is a notification whose "Always allow" lets it through and keeps it', async (t) => {
    if (skip) return t.skip(skip);
    try {
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK);
      const question = wb.notification(`command wants to reach 127.0.0.1:${port}`);
      await question.waitFor({ timeout: WAIT_MS });
      // The first command ran in the sandbox without a question.
      const ran = api.requests('lead').map((r) => newest(r)).find((x) => x.includes('RAN-IN-'));
      assert.match(ran ?? '', /RAN-IN-bwrap/);
      assert.equal(await wb.notification('lead wants to run').count(), 0, 'no command was asked about');
      await question.getByRole('button', { name: 'Always allow', exact: true }).click();
      await api.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('hello-from-the-host'), WAIT_MS);
      const settings = JSON.parse(await readFile(join(workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual(settings['agentTeams.sandbox.allowedDomains'], [`127.0.0.1:${port}`]);
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });
});
