// The toolbelt's VS Code surfaces through the packaged extension (.vsix) in code-server +
// Chromium, the model being the scripted fake API (docs/permissions.md, docs/tools.md):
// - an `ask` rule on Edit: the lead's edit_file and write_file open VS Code's diff editor
//   with the proposed change before the user answers; Allow writes it, Deny leaves the
//   workspace untouched;
// - background jobs in the Team tree: a job started by bash(run_in_background) is a row under
//   its agent with its command and state; a job that ends shows its exit code; Kill on a
//   running job's row ends it (its process is gone) and the agent is told once.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest, type TurnSpec } from '../fake-api';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';
const API_KEY = 'sk-ant-toolbelt-e2e-key';
const ASK = 'Change a.ts, create b.ts, then start the server and a build in the background.';
const WAIT_MS = 45_000;
/** Unique enough to find its process: nothing else on the machine sleeps this long. */
const SERVER = 'sleep 3017';
const BUILD = 'sleep 2; echo BUILD-DONE';

/** The lead, answering from what each request's newest turn says. */
function lead(r: RecordedRequest): TurnSpec {
  const text = newest(r);
  if (text.includes(ASK)) return reply(toolUse('edit_file', { path: 'src/a.ts', old_text: 'OLD_VALUE', new_text: 'NEW_VALUE' }));
  if (text.includes('src/a.ts') && !text.includes('denied')) return reply(toolUse('write_file', { path: 'src/b.ts', content: 'export const PROPOSED_B = 1;\n' }));
  if (text.includes('The user denied this change')) return reply(toolUse('bash', { command: SERVER, run_in_background: true }));
  if (text.includes('Started background job job-1')) return reply(toolUse('bash', { command: BUILD, run_in_background: true }));
  if (text.includes('Started background job job-2')) return 'Both are running; I will wait.';
  return 'Noted.';
}

describe('VS Code: the diff before an asked edit, and background jobs in the Team tree', () => {
  let api: FakeApi | undefined;
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;
  let workspace = '';
  let vs: SuiteWorkbench | undefined;
  const row = (label: string) => wb!.treeRow(CONTAINER, label);
  const diff = () => wb!.page.locator('.monaco-diff-editor').first();

  before(async () => {
    api = await startFakeApi();
    api.setDefault((r) => (r.agent === 'lead' ? lead(r) : `unexpected agent ${r.agent}`));
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-toolbelt-'));
    await mkdir(join(workspace, 'src'));
    await writeFile(join(workspace, 'src', 'a.ts'), 'export const a = OLD_VALUE;\n');
    vs = await openSuiteWorkbench('toolbelt', { workspace, apiUrl: api.url, apiKey: API_KEY, settings: { 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.permissions.ask': ['Edit(src/**)'] } });
    ({ server, wb } = vs);
  });

  after(async () => {
    try { execFileSync('pkill', ['-f', `^${SERVER}$`]); } catch { /* none left, as it should be */ }
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('an asked edit shows the diff first: Allow writes it, Deny leaves the file unwritten', async () => {
    try {
      await wb!.runCommand('Agent Teams: Ask Lead');
      await wb!.answer('Ask Lead', ASK);

      // The change to a.ts: the diff editor shows both sides while the question is open.
      const edit = wb!.notification('lead wants to change src/a.ts');
      await edit.waitFor({ timeout: WAIT_MS });
      assert.match(await edit.innerText(), /the rule Edit\(src\/\*\*\) asks first/);
      await wb!.page.locator('.tab', { hasText: 'lead wants to change src/a.ts (Edit(src/**))' }).waitFor();
      await until('the diff shows the old and the proposed line', async () => {
        const t = await diff().innerText();
        return t.includes('OLD_VALUE') && t.includes('NEW_VALUE');
      }, 20_000);
      assert.equal(await readFile(join(workspace, 'src', 'a.ts'), 'utf8'), 'export const a = OLD_VALUE;\n', 'nothing written before the answer');
      await edit.getByRole('button', { name: 'Allow', exact: true }).click();
      await until('a.ts written', async () => (await readFile(join(workspace, 'src', 'a.ts'), 'utf8')) === 'export const a = NEW_VALUE;\n', WAIT_MS);

      // The new file b.ts: an empty left side, the proposed content on the right; denied.
      const create = wb!.notification('lead wants to create src/b.ts');
      await create.waitFor({ timeout: WAIT_MS });
      await wb!.page.locator('.tab', { hasText: 'lead wants to create src/b.ts' }).waitFor();
      await until('the diff shows the proposed file', async () => (await diff().innerText()).includes('PROPOSED_B'), 20_000);
      await create.getByRole('button', { name: 'Deny', exact: true }).click();
      await api!.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('The user denied this change'), WAIT_MS);
      await assert.rejects(stat(join(workspace, 'src', 'b.ts')), 'b.ts was not created');
      // The diff closes with the answer.
      await wb!.page.locator('.tab', { hasText: 'lead wants to create src/b.ts' }).waitFor({ state: 'detached', timeout: 10_000 });
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });

  it('background jobs are rows under their agent with command and state; Kill ends one and tells the agent', async () => {
    try {
      const serverRow = row(`background job job-1, ${SERVER}, running`);
      await serverRow.waitFor({ timeout: WAIT_MS });
      // Under the lead: the nearest row above it at a lower level is the lead's.
      const parent = await serverRow.evaluate((el) => {
        const level = Number(el.getAttribute('aria-level'));
        const rows = [...el.parentElement!.querySelectorAll('.monaco-list-row')]
          .sort((x, y) => Number(x.getAttribute('data-index')) - Number(y.getAttribute('data-index')));
        const above = rows.slice(0, rows.indexOf(el)).reverse().find((r) => Number(r.getAttribute('aria-level')) < level);
        return above?.getAttribute('aria-label') ?? '';
      });
      assert.match(parent, /^lead\b/, `the job's parent row is the lead's (got "${parent}")`);

      // The build ends by itself: its row says so, with the exit code.
      await row(`background job job-2, ${BUILD}, ended, exit code 0`).waitFor({ timeout: WAIT_MS });
      await api!.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('[background job] job-2'), WAIT_MS);

      // Kill from the server's row: the row says killed, the process is gone, the lead is told once.
      assert.ok(execFileSync('pgrep', ['-f', `^${SERVER}$`]).toString().trim(), 'the server runs before Kill');
      await serverRow.hover();
      await serverRow.locator('.action-label[aria-label^="Kill Background Job"]').click();
      await row(`background job job-1, ${SERVER}, killed`).waitFor({ timeout: WAIT_MS });
      await until('the server process is gone', async () => {
        try { execFileSync('pgrep', ['-f', `^${SERVER}$`]); return false; } catch { return true; }
      }, 10_000);
      await api!.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('job-1 (`sleep 3017`) was killed by the user'), WAIT_MS);
      await new Promise((r) => setTimeout(r, 3_000));
      const told = api!.requests('lead').filter((r) => newest(r).includes('was killed by the user'));
      assert.equal(told.length, 1, 'told once');
      assert.equal(await row(`background job job-1, ${SERVER}, killed`).locator('.action-label[aria-label^="Kill Background Job"]').count(), 0, 'no Kill on a killed job');
    } catch (err) {
      return failureReport(err, { wb, api, server, workspace });
    }
  });
});
