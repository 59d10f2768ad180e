// The packaged extension (.vsix) in a real VS Code (code-server + Chromium) on a seeded team: the container and
// its views, Create Task from the palette, the inbox webview (XSS shown as text, plan approved
// from the card, composer), the plan notification, and a status change made by another
// process reaching the tree.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Team } from '../../src/core/team/team';
import { seedTeam } from '../vscode/seed-team';
import type { Workbench } from './harness/browser';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';

const EXT = 'agent-teams.agent-teams';
const CONTAINER = 'agentTeams';

async function until<T>(fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('VS Code UI', () => {
  let workspace: string;
  let team: Team;
  let planId: string;
  let wb: Workbench | undefined;
  let vs: SuiteWorkbench | undefined;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-ui-'));
    ({ team, planRequestId: planId } = await seedTeam(workspace));
    // The packaged extension, as a user installs it; no model (the seeded team is watched).
    vs = await openSuiteWorkbench('ui', { workspace });
    ({ wb } = vs);
  });

  after(async () => {
    if (wb && process.env.AGENT_TEAMS_E2E_SHOTS) await wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, 'vscode-ui.png'));
    await vs?.close();
    team?.dispose();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('shows the container with the team, its status words and the board', async () => {
    const alice = wb!.treeRow(CONTAINER, 'alice, backend engineer, working');
    await alice.waitFor();
    await wb!.treeRow(CONTAINER, 'bob, tester, idle').waitFor();
    await wb!.treeRow(CONTAINER, 'Plan from alice awaiting approval').waitFor();
    await wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, unowned, blocked by task 1').waitFor();
    await wb!.page.getByText('1 working, 2 idle').first().waitFor();
  });

  it('notifies that alice submitted a plan', async () => {
    await wb!.notification('alice submitted a plan').waitFor();
    // A toast may hide by itself before all its buttons are checked (a loaded machine is slow
    // to get there); the notification center keeps the notification with the same buttons.
    await wb!.showNotificationCenter();
    const item = wb!.notification('alice submitted a plan');
    for (const name of ['Review Plan', 'Approve', 'Reject…']) await item.getByRole('button', { name }).waitFor();
    await wb!.runCommand('Notifications: Hide Notifications');
  });

  it('a status change written by another process updates the tree within a moment', async () => {
    await team.roster.setStatus('bob', 'working');
    const t0 = Date.now();
    await wb!.treeRow(CONTAINER, 'bob, tester, working').waitFor({ timeout: 5000 });
    const ms = Date.now() - t0;
    console.log(`tree row updated ${ms} ms after the roster write`);
    assert.ok(ms < 3000, `tree updated after ${ms} ms`);
  });

  it('shows an XSS payload in the inbox as text and runs nothing', async () => {
    const view = wb!.webview(EXT);
    const card = view.locator('article.msg', { hasText: '<img src=x onerror=' });
    await card.waitFor();
    assert.equal(await view.locator('article.msg .body img, article.msg .body script').count(), 0);
    assert.match(await card.locator('.body').innerText(), /<script>document\.title="pwned"<\/script>/);
    assert.equal(await card.locator('.body strong').innerText(), 'bold');
    assert.notEqual(await view.locator('body').evaluate(() => document.title), 'pwned');
    assert.notEqual(await wb!.page.title(), 'pwned');
  });

  it('approves the plan from its card in the inbox', async () => {
    const view = wb!.webview(EXT);
    const card = view.locator('article.type-plan_approval_request', { hasText: 'Write parse()' });
    await card.scrollIntoViewIfNeeded();
    await card.locator('vscode-button', { hasText: 'Approve' }).click();
    await card.getByText('Approved by user').waitFor();
    const rec = JSON.parse(await readFile(join(workspace, '.team', 'requests', `${planId}.json`), 'utf8')) as { status: string };
    assert.equal(rec.status, 'approved');
    await wb!.treeRow(CONTAINER, 'Plan from alice awaiting approval').waitFor({ state: 'detached' });
  });

  it('sends a message as the user from the composer, once however fast Send is clicked', async () => {
    const view = wb!.webview(EXT);
    await view.locator('.composer vscode-textarea textarea').fill('Status report, please.');
    await view.locator('.composer vscode-button', { hasText: 'Send' }).click({ clickCount: 3 });
    await view.getByText('Sent to lead.').waitFor();
    await view.locator('article.msg.mine', { hasText: 'Status report, please.' }).waitFor();
    // The box is empty now, so Send is off: one more click changes nothing and the confirmation stays.
    const send = view.locator('.composer vscode-button', { hasText: 'Send' });
    assert.equal(await send.getAttribute('disabled'), '');
    await send.click({ force: true });
    assert.equal(await view.locator('.composer .status').textContent(), 'Sent to lead.');
    const lines = (await readFile(join(workspace, '.team', 'inbox', 'lead.jsonl'), 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { from: string; content: string };
    assert.deepEqual([last.from, last.content], ['user', 'Status report, please.']);
    assert.equal(lines.filter((l) => l.includes('Status report, please.')).length, 1, 'one message, not one per click');
  });

  it('keeps a half-written message and its recipient while the inbox is hidden', async () => {
    let view = wb!.webview(EXT);
    await view.locator('.composer vscode-textarea textarea').fill('Half-written thought');
    // The side bar hidden and shown again: the inbox's page is dropped meanwhile.
    const sidebar = wb!.page.locator('.part.sidebar');
    await wb!.runCommand('View: Toggle Primary Side Bar Visibility');
    await sidebar.waitFor({ state: 'hidden' });
    await wb!.runCommand('View: Toggle Primary Side Bar Visibility');
    await sidebar.waitFor({ state: 'visible' });
    view = wb!.webview(EXT);
    await until(async () => ((await view.locator('.composer vscode-textarea textarea').inputValue()) === 'Half-written thought' ? true : undefined));
    await view.locator('.composer vscode-textarea textarea').fill('');
  });

  it('leaves the recipient list alone on roster writes that change no participant, and follows one that does', async () => {
    const view = wb!.webview(EXT);
    const options = view.locator('.composer vscode-single-select vscode-option');
    await options.first().evaluate((o) => { (o as HTMLElement & { marked?: boolean }).marked = true; });
    // What a lease heartbeat does: rewrite the roster with nothing a participant shows changed.
    for (let i = 0; i < 3; i++) {
      await team.roster.update((c) => { (c as unknown as Record<string, unknown>).beat_at = Date.now(); });
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(await options.first().evaluate((o) => (o as HTMLElement & { marked?: boolean }).marked === true), true,
      'the options were not rebuilt');
    await team.roster.spawn('carol', 'reviewer');
    await until(async () => ((await options.allTextContents()).includes('To carol') ? true : undefined));
    await team.roster.setStatus('carol', 'shutdown');
    await until(async () => ((await options.allTextContents()).includes('To carol') ? undefined : true));
    // The row says it in words, as the notices do: "shut down", not the file's `shutdown`.
    await wb!.treeRow(CONTAINER, 'carol, reviewer, shutdown').locator('.label-description', { hasText: 'reviewer · shut down' }).waitFor();
  });

  it('sets a task\'s owner from the Tasks tree, picked from the roster', async () => {
    await wb!.contextMenu(wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, unowned'), 'Edit Task');
    await wb!.pick('Edit task #2: Test the parser', 'Set owner…');
    await wb!.pick('Owner of task #2', 'bob');
    await wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, owned by bob').waitFor();
    const task = JSON.parse(await readFile(join(workspace, '.tasks', 'task_2.json'), 'utf8')) as { owner: string };
    assert.equal(task.owner, 'bob');
    await wb!.contextMenu(wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, owned by bob'), 'Edit Task');
    await wb!.pick('Edit task #2: Test the parser', 'Set owner…');
    await wb!.pick('Owner of task #2', 'Nobody');
    await wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, unowned').waitFor();
  });

  it('removes a blocker from the Tasks tree (the way out when a blocker was deleted or damaged)', async () => {
    await wb!.contextMenu(wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, unowned, blocked by task 1'), 'Edit Task');
    await wb!.pick('Edit task #2: Test the parser', 'Remove blocker #1');
    await until(async () => ((JSON.parse(await readFile(join(workspace, '.tasks', 'task_2.json'), 'utf8')) as { blockedBy: number[] }).blockedBy.length === 0 ? true : undefined));
    await wb!.treeRow(CONTAINER, 'task 2, Test the parser, pending, unowned, blocked by').waitFor({ state: 'detached' });
  });

  it('creates a task from the palette, asking field by field', async () => {
    const page = wb!.page;
    await wb!.runCommand('Agent Teams: Create Task');
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input.input').first();
    await widget.getByText('Subject').waitFor();
    await input.fill('Ship the release');
    await input.press('Enter');
    await widget.getByText('Description (optional)').waitFor();
    await input.fill('Tag v1 and publish');
    await input.press('Enter');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Test the parser' }).waitFor();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Test the parser' }).click();
    await page.keyboard.press('Enter');
    // File ownership starts here too, on a board where no task lists files yet.
    await wb!.answer('Files it may change', 'release/**, CHANGELOG.md');
    const task = await until(async () => JSON.parse(await readFile(join(workspace, '.tasks', 'task_3.json'), 'utf8')) as Record<string, unknown>);
    assert.equal(task.subject, 'Ship the release');
    assert.equal(task.description, 'Tag v1 and publish');
    assert.deepEqual(task.blockedBy, [2]);
    assert.deepEqual(task.files, ['release/**', 'CHANGELOG.md']);
    await wb!.treeRow(CONTAINER, 'task 3, Ship the release, pending, unowned, blocked by task 2').waitFor();
  });

  it('says in a notification when a team file is damaged (moved aside, not silently reset)', async () => {
    await writeFile(join(workspace, '.tasks', 'task_99.json'), '{"id": 99, "subject": "half written');
    const toast = wb!.notification('a team file is damaged: .tasks/task_99.json');
    await toast.waitFor();
    await toast.getByRole('button', { name: 'Show Log' }).waitFor();
    assert.ok((await readdir(join(workspace, '.tasks'))).some((f) => f.startsWith('task_99.json.corrupt')), 'moved aside');
  });
});
