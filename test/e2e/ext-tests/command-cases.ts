// Command cases: each SPEC §7 command run with its argument object writes the right files;
// invalid objects write nothing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/vscode/commands/command-table';
import { TeamFolderDecorations } from '../../../src/vscode/views/team-folders';
import { waitFor } from '../../helpers/tmp';
import { inboxPath, readJson, readLines, type Case, type Env } from './index';

const run = <T>(id: string, args?: unknown) => vscode.commands.executeCommand<T>(id, args);

async function waitForEditor(scheme: string): Promise<vscode.TextEditor> {
  let found: vscode.TextEditor | undefined;
  await waitFor(() => (found = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === scheme)), 10_000, `an editor of ${scheme}`);
  return found!;
}

async function pendingPlan(env: Env): Promise<string> {
  const [r] = await env.team.requests.list({ status: 'pending', kind: 'plan' });
  assert.ok(r, 'a plan is pending');
  return r.request_id;
}

export const commandCases: Case[] = [
  ['createTask {subject, description, blockedBy} writes .tasks/task_<id>.json', async ({ root }: Env) => {
    const task = await run<{ id: number }>('agentTeams.createTask', { subject: 'Release', description: 'Tag and publish', blockedBy: [2] });
    assert.equal(task?.id, 3);
    const file = await readJson(join(root, '.tasks', 'task_3.json'));
    assert.equal(file.subject, 'Release');
    assert.equal(file.description, 'Tag and publish');
    assert.deepEqual(file.blockedBy, [2]);
    assert.equal(file.status, 'pending');
  }],
  ['createTask with an invalid object writes nothing', async ({ team }: Env) => {
    assert.equal(await run('agentTeams.createTask', { subject: '   ' }), undefined);
    assert.equal((await team.tasks.list()).length, 3);
  }],
  ['sendMessage {to, content} appends a message from user to the inbox', async ({ root }: Env) => {
    await run('agentTeams.sendMessage', { to: 'alice', content: 'How is it going?' });
    const last = (await readLines(inboxPath(root, 'alice'))).at(-1)!;
    assert.equal(last.from, 'user');
    assert.equal(last.to, 'alice');
    assert.equal(last.type, 'message');
    assert.equal(last.content, 'How is it going?');
  }],
  ['sendMessage to an invalid or unknown name writes nothing', async ({ root }: Env) => {
    const before = (await readLines(inboxPath(root, 'alice'))).length;
    assert.equal(await run('agentTeams.sendMessage', { to: 'Not A Name', content: 'x' }), undefined);
    assert.equal(await run('agentTeams.sendMessage', { to: 'zed', content: 'x' }), undefined);
    assert.equal((await readLines(inboxPath(root, 'alice'))).length, before);
  }],
  ['rejectPlan {requestId, feedback} rejects and tells the teammate', async (env: Env) => {
    const id = await pendingPlan(env);
    await run('agentTeams.rejectPlan', { requestId: id, feedback: 'Add a benchmark step' });
    const rec = await readJson(join(env.root, '.team', 'requests', `${id}.json`));
    assert.equal(rec.status, 'rejected');
    assert.equal(rec.feedback, 'Add a benchmark step');
    const reply = (await readLines(inboxPath(env.root, 'alice'))).at(-1)!;
    assert.equal(reply.type, 'plan_approval_response');
    assert.equal(reply.approve, false);
    assert.equal(reply.request_id, id);
  }],
  ['approvePlan {requestId} approves a resubmitted plan; rejectPlan with empty feedback does not decide', async (env: Env) => {
    const rec = await env.team.submitPlan('alice', '1. Parse\n2. Benchmark', 'user');
    assert.equal(await run('agentTeams.rejectPlan', { requestId: rec.request_id, feedback: ' ' }), undefined);
    assert.equal((await env.team.requests.get(rec.request_id))?.status, 'pending');
    await run('agentTeams.approvePlan', { requestId: rec.request_id });
    assert.equal((await env.team.requests.get(rec.request_id))?.status, 'approved');
    const reply = (await readLines(inboxPath(env.root, 'alice'))).at(-1)!;
    assert.equal(reply.type, 'plan_approval_response');
    assert.equal(reply.approve, true);
  }],
  ['reviewPlan {requestId} opens the plan as a Markdown document; its title-bar Approve Plan (the document uri) approves it', async (env: Env) => {
    const rec = await env.team.submitPlan('alice', '1. Read the parser\n2. **Benchmark** it', 'user');
    await run('agentTeams.reviewPlan', { requestId: rec.request_id });
    const editor = await waitForEditor('agent-teams-plan');
    const doc = editor.document;
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.getText(), /^# alice's plan/);
    assert.match(doc.getText(), /Waiting for your answer/);
    assert.match(doc.getText(), /2\. \*\*Benchmark\*\* it/);
    assert.ok(!doc.getText().includes(rec.request_id), 'no raw request id in the document');
    await run('agentTeams.approvePlan', doc.uri);
    assert.equal((await env.team.requests.get(rec.request_id))?.status, 'approved');
    await waitFor(() => doc.getText().includes('Approved'), 10_000, 'the open document says Approved');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }],
  ['broadcast {content} reaches every teammate', async ({ root }: Env) => {
    await run('agentTeams.broadcast', { content: 'Lunch' });
    for (const name of ['alice', 'bob']) {
      const last = (await readLines(inboxPath(root, name))).at(-1)!;
      assert.equal(last.type, 'broadcast');
      assert.equal(last.from, 'user');
    }
  }],
  ['requestShutdown {teammate} records a request and messages the teammate', async ({ root, team }: Env) => {
    await run('agentTeams.requestShutdown', { teammate: 'bob' });
    const [rec] = await team.requests.list({ kind: 'shutdown', to: 'bob' });
    assert.equal(rec?.status, 'pending');
    assert.equal(rec?.from, 'user');
    const last = (await readLines(inboxPath(root, 'bob'))).at(-1)!;
    assert.equal(last.type, 'shutdown_request');
    assert.equal(last.request_id, rec?.request_id);
  }],
  ['completeTask {id} completes and unblocks dependents', async ({ team }: Env) => {
    await run('agentTeams.completeTask', { id: 1 });
    assert.equal((await team.tasks.get(1))?.status, 'completed');
    assert.deepEqual((await team.tasks.get(2))?.blockedBy, []);
  }],
  ['openInbox {name} opens the inbox view', async () => {
    await run('agentTeams.openInbox', { name: 'alice' });
  }],
  ['every contributed command is registered, and every registered one contributed', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    const pkg = vscode.extensions.getExtension('agent-teams.agent-teams')!.packageJSON as {
      contributes: { commands: { command: string }[]; menus: { commandPalette: { command: string; when?: string }[] } };
    };
    const contributed = pkg.contributes.commands.map((c) => c.command).sort();
    // Commands that act on a tree row (a change, an MCP server) take the row, not the palette's
    // argument object: they are the contributed ones outside COMMANDS, and hidden from the palette.
    const hidden = new Set(pkg.contributes.menus.commandPalette.filter((m) => m.when === 'false').map((m) => m.command));
    const rowOnly = contributed.filter((id) => !COMMANDS.some((c) => c.id === id));
    for (const id of rowOnly) assert.ok(hidden.has(id), `${id} is contributed but neither a palette command nor hidden from the palette`);
    assert.deepEqual(COMMANDS.map((c) => c.id).sort(), contributed.filter((id) => !rowOnly.includes(id)));
    for (const id of contributed) assert.ok(all.has(id), id);
  }],
  ['openDoc {doc} opens a document shipped in the extension; a name that is not one opens nothing', async () => {
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
    await run('agentTeams.openDoc', { doc: 'security' });
    await waitFor(() => tabs().some((l) => /security\.md/.test(l)), 10_000, 'a tab of docs/security.md');
    const before = tabs().length;
    assert.equal(await run('agentTeams.openDoc', { doc: '../package' }), undefined);
    assert.equal(await run('agentTeams.openDoc', { doc: '/etc/passwd' }), undefined);
    assert.equal(tabs().length, before, 'nothing opened for a name that is not a shipped document');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  }],
  ['the team\'s folders at the workspace\'s top say in the Explorer what they are; the same names deeper down do not', async ({ root }: Env) => {
    const d = new TeamFolderDecorations(vscode.Uri.file(root));
    for (const f of ['.team', '.tasks', '.worktrees']) {
      const dec = d.provideFileDecoration(vscode.Uri.file(join(root, f)));
      assert.equal(dec?.badge, 'AT', f);
      assert.match(dec?.tooltip ?? '', /^Agent Teams: /, f);
    }
    assert.equal(d.provideFileDecoration(vscode.Uri.file(join(root, 'src', '.team'))), undefined);
    assert.equal(d.provideFileDecoration(vscode.Uri.file(join(root, '.team', 'inbox'))), undefined);
    assert.equal(d.provideFileDecoration(vscode.Uri.file(`${root}-other/.team`)), undefined);
    assert.equal(d.provideFileDecoration(vscode.Uri.file(`${root}x.team`)), undefined);
    assert.equal(d.provideFileDecoration(vscode.Uri.file(join(root, 'constructor'))), undefined);
  }],
];
