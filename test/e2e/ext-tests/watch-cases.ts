// Watching an agent work must not disturb the Team tree: the lines a working agent appends to
// its transcript (streamed text, tool results, messages, usage), followed by an open
// transcript panel, redraw no tree row — a redraw rebuilds a row's inline actions, and a click
// on one (Approve Plan) landing mid-redraw is lost. Likewise a new change record redraws only
// its agent's rows in the Changes view, and the whole view only when an agent comes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ChangeLog } from '../../../src/core/watch/change-log';
import type { Case, Env } from './index';

/** Appends one change record (docs/file-formats.md, "Changes") as an agent's write would. */
async function changeRecord(root: string, agent: string, file: string): Promise<void> {
  const dir = join(root, '.team', 'changes');
  await mkdir(dir, { recursive: true });
  const rec = {
    id: `chg_${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`, agent, ts: Date.now() / 1000, task: null, tool: 'write_file',
    root: '', path: file, before: null, after: { bytes: 1, stored: false, why: 'not_written' },
  };
  await appendFile(join(dir, `${agent}.jsonl`), `${JSON.stringify(rec)}\n`);
}

async function eventually(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(ok(), `not in time: ${what}`);
}

export const watchCases: Case[] = [
  ['a new change record redraws its agent\'s rows in the Changes view; a new agent redraws the view', async ({ api, root }: Env) => {
    const view = api.changes as vscode.TreeDataProvider<{ agent?: string }>;
    await changeRecord(root, 'cleo', 'a.txt');
    const agents = async () => (await view.getChildren()) ?? [];
    for (let i = 0; i < 100 && !(await agents()).some((n) => n.agent === 'cleo'); i++) await new Promise((r) => setTimeout(r, 100));
    const cleo = (await agents()).find((n) => n.agent === 'cleo');
    assert.ok(cleo, 'cleo has a row');
    await new Promise((r) => setTimeout(r, 500)); // the watcher's own event for the first record
    const redrawn: unknown[] = [];
    const sub = view.onDidChangeTreeData!((e) => redrawn.push(e));
    try {
      await changeRecord(root, 'cleo', 'b.txt');
      await eventually('a redraw for cleo\'s second change', () => redrawn.length > 0);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(redrawn, [cleo], "cleo's row alone, not the whole view");
      assert.equal(String((await view.getTreeItem(cleo)).description), '2 changes');
      await changeRecord(root, 'dora', 'c.txt');
      await eventually('a redraw for dora', () => redrawn.length > 1);
      assert.equal(redrawn[1], undefined, 'an agent that comes redraws the view');
    } finally {
      sub.dispose();
    }
  }],
  ['a click on a file row in the Changes view opens its whole diff (before the first change, after the last); its changes stay beneath', async ({ api, root }: Env) => {
    type Node = { nodeKind: string; agent?: string; file?: string; changes?: unknown[] };
    const view = api.changes as vscode.TreeDataProvider<Node>;
    const log = new ChangeLog(root);
    const abs = join(root, 'calc.js');
    const v = ['const add = (a, b) => a - b;\n', 'const add = (a, b) => a + b;\n', 'const add = (a, b) => a + b;\nconst sub = (a, b) => a - b;\n'];
    await log.record('fern', root, { abs, tool: 'edit_file', before: Buffer.from(v[0]!), after: Buffer.from(v[1]!) }, { task: null, realTeamRoot: root });
    await log.record('fern', root, { abs, tool: 'edit_file', before: Buffer.from(v[1]!), after: Buffer.from(v[2]!) }, { task: null, realTeamRoot: root });
    let file: Node | undefined;
    for (let i = 0; i < 100 && !file; i++) {
      const fern = ((await view.getChildren()) ?? []).find((n) => n.agent === 'fern' && n.nodeKind === 'changeAgent');
      const files = fern ? (await view.getChildren(fern)) ?? [] : [];
      file = files.find((n) => n.file === 'calc.js' && n.changes?.length === 2);
      if (!file) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(file, "fern's calc.js row with its 2 changes");
    const item = await view.getTreeItem(file);
    assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'the changes stay beneath, behind the twistie');
    assert.equal(((await view.getChildren(file)) ?? []).length, 2);
    assert.ok(item.command, 'a click runs a command');
    try {
      await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
      let input: unknown;
      for (let i = 0; i < 50 && !((input = vscode.window.tabGroups.activeTabGroup.activeTab?.input) instanceof vscode.TabInputTextDiff); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(input instanceof vscode.TabInputTextDiff, 'a diff editor opened');
      assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), v[0], 'left: before the first change');
      assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), v[2], 'right: after the last');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  }],
  ['a working agent\'s transcript lines, followed by its open panel, redraw no Team tree row', async ({ api, root }: Env) => {
    const tree = api.teamTree as vscode.TreeDataProvider<unknown>;
    await vscode.commands.executeCommand('agentTeams.openTranscript', { agent: 'bob' });
    await new Promise((r) => setTimeout(r, 1000));
    const redrawn: unknown[] = [];
    const sub = tree.onDidChangeTreeData!((e) => redrawn.push(e));
    const file = join(root, '.team', 'transcripts', 'bob.jsonl');
    await mkdir(join(root, '.team', 'transcripts'), { recursive: true });
    const line = (kind: string, body: Record<string, unknown>) => appendFile(file, `${JSON.stringify({ id: randomUUID(), kind, ts: Date.now() / 1000, ...body })}\n`);
    try {
      for (let round = 0; round < 3; round++) {
        for (const piece of ['Checking', ' the', ' tests.']) {
          await line('event', { event: { type: 'text', attempt: 0, text: piece } });
          await new Promise((r) => setTimeout(r, 100));
        }
        await line('event', { event: { type: 'usage', input: 10, output: 5, cache_read: 0, cache_write: 0 } });
        await line('msg', { message: { role: 'assistant', content: [{ type: 'text', text: 'Checking the tests.' }, { type: 'tool_use', id: `tu${round}`, name: 'bash', input: { command: 'ls' } }] } });
        await line('event', { event: { type: 'tool_result', id: `tu${round}`, tool: 'bash', is_error: false, text: 'a.txt', chars: 5 } });
        await line('msg', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${round}`, content: 'a.txt' }] } });
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(redrawn, [], 'no Team tree redraw');
    } finally {
      sub.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  }],
];
