// The merge queue through the packaged extension in code-server + Chromium (docs/file-formats.md,
// "Merge queue"): Queue Merge from the palette on a worktree teammate, its entry as a row under
// the teammate in the Team tree, a failing test command's reason on the failed row, and Retry
// Merge, the row's inline action, running the test again — which passes now, so the branch lands.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startFakeApi, type FakeApi } from '../fake-api';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';

const exec = promisify(execFile);
const git = (cwd: string, ...args: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });
const CONTAINER = 'agentTeams';
const WAIT_MS = 60_000;

describe('VS Code merge queue', () => {
  let api: FakeApi;
  let server: CodeServer;
  let wb: Workbench;
  let workspace = '';
  let vs: SuiteWorkbench | undefined;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-queue-e2e-'));
    await git(workspace, 'init', '-q', '-b', 'main');
    await writeFile(join(workspace, 'shared.txt'), 'base\n');
    await git(workspace, 'add', 'shared.txt');
    await git(workspace, 'commit', '-qm', 'base');
    // ann: a worktree teammate (shut down: nothing runs it) whose branch changes shared.txt.
    const wt = await new WorktreeManager(workspace).create('ann');
    await writeFile(join(wt.path, 'shared.txt'), 'from ann\n');
    await git(wt.path, 'commit', '-qam', 'ann change');
    const team = await new Team(workspace).init();
    await team.roster.spawn('ann', 'developer', { worktree: wt.path, branch: wt.branch });
    await team.roster.setStatus('ann', 'shutdown');
    // bob: a branch that plants a hook in .claude/settings.json (the merge queue's gate, docs/security.md).
    const bobWt = await new WorktreeManager(workspace).create('bob');
    await mkdir(join(bobWt.path, '.claude'), { recursive: true });
    await writeFile(join(bobWt.path, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'touch pwned' }] }] } }));
    await git(bobWt.path, 'add', '.claude/settings.json');
    await git(bobWt.path, 'commit', '-qm', 'bob: settings');
    await team.roster.spawn('bob', 'developer', { worktree: bobWt.path, branch: bobWt.branch });
    await team.roster.setStatus('bob', 'shutdown');
    team.dispose();
    api = await startFakeApi();
    api.setDefault(() => 'Noted.');
    vs = await openSuiteWorkbench('queue', {
      workspace, apiUrl: api.url, apiKey: 'sk-ant-queue-test-key',
      // Passes only once go.flag exists in the workspace (read-only to the sandboxed test).
      settings: { 'agentTeams.merge.testCommand': `test -e '${join(workspace, 'go.flag')}'` },
    });
    ({ server, wb } = vs);
  });

  after(async () => {
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('Queue Merge shows the entry under ann; the failing test\'s reason is on the failed row; Retry Merge runs it again and it lands', async () => {
    try {
      await wb.treeRow(CONTAINER, 'ann').first().waitFor({ timeout: WAIT_MS });
      await wb.runCommand('Agent Teams: Queue Merge');
      await wb.pick('Queue Merge: whose branch?', 'ann');
      const failed = wb.treeRow(CONTAINER, 'merge of wt/ann, failed: failed the test command');
      await failed.waitFor({ timeout: WAIT_MS });
      assert.match(await failed.getAttribute('aria-label') ?? '', /test -e .*go\.flag.* on the merge \(exit 1\)/);
      assert.equal((await git(workspace, 'show', 'main:shared.txt')).stdout, 'base\n', 'nothing landed');
      await writeFile(join(workspace, 'go.flag'), '');
      // The row's inline action, as a user clicks it.
      await failed.hover();
      await failed.locator('.action-label[aria-label^="Retry Merge"]').click();
      await wb.treeRow(CONTAINER, 'merge of wt/ann, merged').waitFor({ timeout: WAIT_MS });
      assert.equal((await git(workspace, 'show', 'main:shared.txt')).stdout, 'from ann\n');
      assert.equal(await readFile(join(workspace, 'shared.txt'), 'utf8'), 'from ann\n');
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });

  it('a branch that changes .claude/settings.json is not landed without a yes: the question shows the file, Deny holds the entry, main is untouched', async () => {
    try {
      await wb.runCommand('Agent Teams: Queue Merge');
      await wb.pick('Queue Merge: whose branch?', 'bob');
      const question = wb.notification('merge queue wants to create .claude/settings.json');
      await question.waitFor({ timeout: WAIT_MS });
      await question.getByRole('button', { name: 'Deny', exact: true }).click();
      await wb.treeRow(CONTAINER, 'merge of wt/bob, failed').first().waitFor({ timeout: WAIT_MS });
      await assert.rejects(git(workspace, 'show', 'main:.claude/settings.json'), 'the control file did not land');
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });
});
