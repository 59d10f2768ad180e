// Watching the work through the packaged extension (.vsix) in code-server + Chromium, with the
// model being the scripted fake Messages API (test/fake-api) on 127.0.0.1: a teammate's
// transcript panel, open while it works, shows its plan request (approved from the panel, and
// the teammate goes on), its tool call running and then its result, with HTML in the model's
// text and in the tool output shown as text (no script runs); summary mode folds the run of
// tool calls into one line that opens; the Changes view opens a change in VS Code's diff
// editor and reverts it, and refuses to revert a file changed by hand since, saying why.
//
// The fake model (transcript-model.ts) answers from what each request says, never from call order.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import { startFakeApi, type FakeApi } from '../fake-api';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { until } from './harness/until';
import {
  API_KEY, APPROVED_TEXT, ASK, CMD_WAIT, GO_FILE, HAND_BY_WES, HAND_FILE, HAND_TEXT, NOTES_AFTER, NOTES_BEFORE, PLAN, RESULT_MARK,
  TranscriptModel, XSS_MARK,
} from './transcript-model';

const CONTAINER = 'agentTeams';

describe('VS Code: watching a teammate work (transcript panel, Changes view)', () => {
  let workspace: string;
  let api: FakeApi;
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;
  let vs: SuiteWorkbench | undefined;

  const row = (label: string) => wb!.treeRow(CONTAINER, label);
  const file = (rel: string) => readFile(join(workspace, rel), 'utf8');

  /**
   * The content frame of wes's transcript panel. Found by what it shows (the inbox is a
   * webview of the same extension); looked up again after the panel was hidden, since a hidden
   * panel's page is dropped and drawn anew.
   */
  async function panel(agent = 'wes'): Promise<Frame> {
    return until(`the transcript panel of ${agent}`, async () => {
      for (const f of wb!.page.frames()) {
        if (f.isDetached()) continue;
        const shown = await f.locator('header #agent').textContent({ timeout: 300 }).catch(() => null);
        if (shown === agent) return f;
      }
      return undefined;
    }, 60_000);
  }

  /**
   * Opens a file row of the Changes view (its twistie: a click on the row opens the file's diff)
   * until its change row shows. A click that lands while the tree redraws the row (a new
   * change record arrives) can be lost, as for a user, who would click again; so does this.
   */
  async function expandUntil(file: string, change: string) {
    const child = row(change).first();
    await until(`${file} opened to show "${change}"`, async () => {
      if (await child.isVisible()) return true;
      const parent = row(file).first();
      if ((await parent.getAttribute('aria-expanded', { timeout: 2_000 })) !== 'true') await parent.locator('.monaco-tl-twistie').click({ timeout: 2_000 });
      return child.waitFor({ timeout: 3_000 }).then(() => true, () => false);
    }, 30_000);
    return child;
  }

  /** The tool row of the bash call whose input is CMD_WAIT. */
  const bashRow = (f: Frame) => f.locator('#rows .row.kind-tool', { hasText: 'while [ ! -f' });

  before(async () => {
    api = await startFakeApi();
    new TranscriptModel().install(api);
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-transcript-'));
    await writeFile(join(workspace, 'notes.txt'), NOTES_BEFORE);
    vs = await openSuiteWorkbench('transcript', {
      workspace, apiUrl: api.url, apiKey: API_KEY,
      settings: { 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.transcript.view': 'normal' },
    });
    ({ server, wb } = vs);
  });

  after(async () => {
    if (wb && process.env.AGENT_TEAMS_E2E_SHOTS) await wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, 'vscode-transcript.png'));
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  const diagnose = (err: unknown) => failureReport(err, { wb, api, server, workspace });

  it('shows a working teammate live: plan approved in the panel, a tool call running then its result, HTML inert, summary folds', async () => {
    try {
      await wb!.runCommand('Agent Teams: Ask Lead');
      await wb!.answer('Ask Lead', ASK);
      await row('wes, checker').first().waitFor({ timeout: 60_000 });

      // Open wes's transcript while he works; his plan waits for the user in the panel.
      await wb!.runCommand('Agent Teams: Open Transcript');
      await wb!.pick('Open Transcript', 'wes');
      let f = await panel();
      const card = f.locator('#pending .ask-plan', { hasText: PLAN });
      await card.waitFor({ timeout: 60_000 });
      await f.locator('#rows .row.kind-request', { hasText: PLAN }).waitFor();
      await card.getByRole('button', { name: 'Approve' }).click();

      // wes goes on: the approval reached him as mail, and his command shows running, no result yet.
      await card.waitFor({ state: 'detached' });
      const approvedMail = await api.waitForRequest((r) => r.agent === 'wes' && /plan_approval_response[^>]*approve="true"/.test(newest(r)), 30_000);
      assert.ok(approvedMail, 'the approval reached wes');
      await bashRow(f).waitFor({ timeout: 30_000 });
      assert.doesNotMatch(await bashRow(f).innerText(), new RegExp(RESULT_MARK), 'no result while the command runs');
      await f.locator('#activity', { hasText: 'running bash' }).waitFor();

      // The command finishes: its result appears in the same row, in the open panel.
      await writeFile(join(workspace, GO_FILE), 'go\n');
      await bashRow(f).filter({ hasText: RESULT_MARK }).waitFor({ timeout: 30_000 });

      // HTML in the tool's input and output and in the model's text is text; no script ran.
      const result = await bashRow(f).locator('pre.body').innerText();
      assert.match(result, /<img src=x onerror="window\.__transcriptXss=1">/);
      assert.match(result, /<script>window\.__transcriptXss=2<\/script>/);
      await f.locator('#rows .row.kind-text', { hasText: 'Plan approved, running the checks' }).waitFor();
      assert.match(await f.locator('#rows .row.kind-text', { hasText: 'Plan approved' }).innerText(), /<img src=x onerror=/, APPROVED_TEXT);
      assert.equal(await f.locator('#rows img, #rows script, #rows iframe').count(), 0, 'no element was made from the HTML');
      assert.equal(await f.evaluate((mark) => (window as unknown as Record<string, unknown>)[mark], XSS_MARK), undefined, 'no injected script ran');
      assert.ok(CMD_WAIT.includes(XSS_MARK));

      // wes edits notes.txt, runs one more command, writes hand.txt and idles.
      await until('hand.txt written by wes', async () => (await file(HAND_FILE).catch(() => '')) === HAND_BY_WES, 60_000);
      await f.locator('#rows .row.kind-text', { hasText: HAND_TEXT }).waitFor();
      assert.equal(await file('notes.txt'), NOTES_AFTER);

      // Summary mode: the run of three calls (bash, edit_file, bash) is one line that opens into the list.
      await f.locator('#modes button[data-mode="summary"]').click();
      await f.locator('#modes button[data-mode="summary"][aria-pressed="true"]').waitFor();
      const group = f.locator('#rows .row.kind-group', { hasText: '3 tool calls' });
      await group.waitFor();
      assert.match(await group.locator('.head').innerText(), /3 tool calls\s*bash ×2, edit_file/);
      assert.equal(await f.locator('#rows .row.kind-tool').count(), 0, 'no tool call row of its own in summary');
      const calls = group.locator('details');
      assert.equal(await calls.evaluate((d) => (d as HTMLDetailsElement).open), false, 'folded at first');
      await calls.locator('summary').click();
      await until('the group opened', async () => calls.evaluate((d) => (d as HTMLDetailsElement).open));
      const list = await group.locator('pre.body').innerText();
      assert.match(list, /✓ bash[^\n]*\n✓ edit_file[^\n]*\n✓ bash/);
      // The panel's own words and the mail stay; back to normal shows each call again.
      await f.locator('#modes button[data-mode="normal"]').click();
      await bashRow(f).waitFor();
      f = await panel();
      assert.equal(await f.evaluate((mark) => (window as unknown as Record<string, unknown>)[mark], XSS_MARK), undefined);
    } catch (err) {
      await diagnose(err);
    }
  });

  it('opens a change in the diff editor, reverts it, and refuses to revert a file changed by hand', async () => {
    try {
      await wb!.runCommand('Agent Teams: Show Changes');
      // Room for the Changes view's rows: the container's other views folded.
      for (const section of ['Team Section', 'Tasks Section', 'Inbox Section']) {
        const header = wb!.page.locator(`[id="workbench.view.extension.${CONTAINER}"] .pane-header[aria-label="${section}"]`);
        if ((await header.getAttribute('aria-expanded').catch(() => null)) === 'true') await header.click();
      }
      // agent → file (collapsed) → change. A click on the file row opens its whole diff, as
      // Source Control does (one change here: the same two sides as the change row's).
      await row('notes.txt').first().waitFor({ timeout: 30_000 });
      await row('notes.txt').first().click();
      const diff = wb!.page.locator('.monaco-diff-editor');
      await diff.locator('.editor.modified .view-lines', { hasText: 'beta' }).waitFor({ timeout: 30_000 });
      const edit = await expandUntil('notes.txt', 'wes edited notes.txt at');
      await edit.click();

      // VS Code's diff editor: before on the left, after on the right.
      await diff.waitFor({ timeout: 30_000 });
      await wb!.page.locator('.tabs-container .tab', { hasText: 'notes.txt · wes edited' }).waitFor();
      await diff.locator('.editor.original .view-lines', { hasText: 'alpha' }).waitFor();
      await diff.locator('.editor.modified .view-lines', { hasText: 'beta' }).waitFor();

      // Revert Change: the file is as before, and a record of the revert appears.
      await wb!.contextMenu(edit, 'Revert Change');
      await wb!.notification("Reverted wes's change to notes.txt").first().waitFor();
      await until('notes.txt restored', async () => (await file('notes.txt')) === NOTES_BEFORE);

      // hand.txt changed by hand after wes wrote it: the revert is refused with the reason, the file kept.
      await writeFile(join(workspace, HAND_FILE), 'changed by hand\n');
      await row(HAND_FILE).first().waitFor();
      const created = await expandUntil(HAND_FILE, `wes created ${HAND_FILE} at`);
      await wb!.contextMenu(created, 'Revert Change');
      await wb!.notification(`Not reverted: ${HAND_FILE} has changed since wes's change`).first().waitFor();
      assert.equal(await file(HAND_FILE), 'changed by hand\n');
    } catch (err) {
      await diagnose(err);
    }
  });
});
