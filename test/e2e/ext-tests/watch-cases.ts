// Watching an agent work must not disturb the Team tree: the lines a working agent appends to
// its transcript (streamed text, tool results, messages, usage), followed by an open
// transcript panel, redraw no tree row — a redraw rebuilds a row's inline actions, and a click
// on one (Approve Plan) landing mid-redraw is lost.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Case, Env } from './index';

export const watchCases: Case[] = [
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
