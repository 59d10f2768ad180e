// A nested repository planted by an agent, through the packaged extension in code-server
// (docs/security.md, "Nested repositories"): VS Code's own Source Control opens repositories
// that appear inside the folder and runs `git status` there, which would run the planted
// `core.fsmonitor` outside the sandbox. The lead's command (scripted fake API) makes one; the
// extension disables it when the command ends and says so, and VS Code's git never runs it.
// The control: renamed back by hand (as a user who trusts it would), VS Code's git does run it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest } from '../fake-api';
import { detectEngine } from '../../src/core/sandbox/engine';
import { DISABLED_NAME } from '../../src/core/sandbox/nested-repos';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';

const exec = promisify(execFile);
const ASK = 'Set up the fixture repository.';
const WAIT_MS = 60_000;

describe('VS Code: a nested repository an agent makes', () => {
  let api: FakeApi;
  let workspace = '';
  let vs: SuiteWorkbench | undefined;
  let skip = '';
  let marker = '';

  function lead(r: RecordedRequest) {
    const text = newest(r);
    const id = '-c user.name=a -c user.email=a@a';
    if (text.includes(ASK)) {
      return reply(toolUse('bash', { command: `git init -q fixture && git -C fixture ${id} commit -q --allow-empty -m f && git -C fixture config core.fsmonitor "touch ${marker}; false" && echo made` }));
    }
    if (text.includes('made')) return 'Made the fixture.';
    return 'Noted.';
  }

  before(async () => {
    const engine = await detectEngine();
    if (!engine.engine) { skip = `no sandbox on this machine: ${engine.reason}`; return; }
    api = await startFakeApi();
    api.setDefault((r) => (r.agent === 'lead' ? lead(r) : 'unexpected'));
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-nested-e2e-'));
    marker = join(workspace, 'fsmonitor-ran');
    await exec('git', ['init', '-q'], { cwd: workspace });
    await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: workspace });
    vs = await openSuiteWorkbench('nested-repo', { workspace, apiUrl: api.url, apiKey: 'sk-ant-nested-test-key', settings: { 'agentTeams.sandbox.autoAllow': true, 'git.autoRepositoryDetection': true } });
  });

  after(async () => {
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('is disabled when the command ends and reported; VS Code\'s Source Control never runs its fsmonitor', async (t) => {
    if (skip) return t.skip(skip);
    const { wb, server } = vs!;
    const ran = () => stat(marker).then(() => true, () => false);
    try {
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK);
      await wb.notification('made a git repository inside the folder').waitFor({ timeout: WAIT_MS });
      assert.ok(await stat(join(workspace, 'fixture', DISABLED_NAME)), 'its .git was put aside');
      // VS Code's git looks at new repositories within a second or two; give it ten.
      await new Promise((r) => setTimeout(r, 10_000));
      assert.equal(await ran(), false, "VS Code's git did not run the planted fsmonitor");
      // The control: the same repository, trusted back by hand, is opened and run by VS Code's git.
      await rename(join(workspace, 'fixture', DISABLED_NAME), join(workspace, 'fixture', '.git'));
      // VS Code's git looks for repositories in the folder's subfolders when a window opens.
      await wb.page.evaluate(() => { (window as unknown as { nestedOldPage?: boolean }).nestedOldPage = true; });
      await wb.runCommand('Developer: Reload Window');
      await wb.page.waitForFunction(() => !(window as unknown as { nestedOldPage?: boolean }).nestedOldPage, undefined, { timeout: 120_000 });
      const deadline = Date.now() + 60_000;
      while (!(await ran()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      assert.equal(await ran(), true, 'the attack is real here: VS Code\'s git runs a nested repository\'s fsmonitor');
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });
});
