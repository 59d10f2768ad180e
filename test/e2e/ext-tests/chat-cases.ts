// The @team chat participant, called the way VS Code's Chat view calls it — its handler with a
// request, a response stream and a cancellation token — with a recording stream in place of the
// chat UI (code-server's Chat view cannot be driven without a chat extension signed in). The
// lead runs on the fixture's fake language model (models.ts scripts it).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../../helpers/tmp';
import type { Case } from './index';
import { agentOf, fakeLm } from './models';

interface Recorded { markdown: string[]; progress: string[]; buttons: vscode.Command[] }

function recorder(): Recorded & { stream: Parameters<NonNullable<import('../../../src/vscode/activation/extension').ExtensionApi['chat']>>[2] } {
  const r: Recorded = { markdown: [], progress: [], buttons: [] };
  return {
    ...r,
    stream: {
      markdown: (v: string | vscode.MarkdownString) => void r.markdown.push(typeof v === 'string' ? v : v.value),
      progress: (v: string) => void r.progress.push(v),
      button: (c: vscode.Command) => void r.buttons.push(c),
    },
  };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, no) => { timer = setTimeout(() => no(new Error(`${what}: no end within ${ms} ms`)), ms); })]).finally(() => clearTimeout(timer));
}

/** The lead answers from a queue of scripted replies; other agents say "ok". */
function scriptLead(replies: Array<Array<{ text?: string; call?: { id: string; name: string; input: unknown } }>>): void {
  fakeLm().respond = (req) => (agentOf(req) === 'lead' ? replies.shift() ?? [{ text: 'nothing more' }] : [{ text: 'ok' }]);
}

const leadText = (req: { messages: Array<{ content: Array<{ text?: string }> }> }): string => JSON.stringify(req.messages);

export const chatCases: Case[] = [
  ['@team: the request goes to the lead; the response streams its words and what it does, and ends with Open Transcript and Show Changes; a follow-up continues the conversation', async ({ api }) => {
    assert.ok(api.chat, 'the engine offers the participant handler');
    scriptLead([
      [{ text: 'Checking ' }, { text: 'the tree.' }, { call: { id: 'l1', name: 'bash', input: { command: 'echo chat-check' } } }],
      [{ text: 'All done here.' }],
      [{ text: 'Still here.' }],
    ]);
    const rec = recorder();
    const cts = new vscode.CancellationTokenSource();
    await within(Promise.resolve(api.chat({ prompt: 'check the tree', command: undefined }, {}, rec.stream, cts.token)), 60_000, '@team request');
    const words = rec.markdown.join('');
    assert.match(words, /Checking the tree\.[\s\S]*All done here\./);
    assert.ok(rec.progress.includes('lead is running `echo chat-check`'), `progress: ${rec.progress.join(' | ')}`);
    assert.deepEqual(rec.buttons.slice(-2).map((b) => [b.command, b.title]), [['agentTeams.openTranscript', 'Open Transcript'], ['agentTeams.showChanges', 'Show Changes']]);
    // A follow-up is the same lead conversation: its request carries the first exchange.
    const next = recorder();
    await within(Promise.resolve(api.chat({ prompt: 'and now?', command: undefined }, {}, next.stream, cts.token)), 60_000, '@team follow-up');
    assert.match(next.markdown.join(''), /Still here\./);
    const last = fakeLm().requests.filter((r) => agentOf(r) === 'lead').at(-1)!;
    assert.ok(leadText(last).includes('check the tree') && leadText(last).includes('All done here.') && leadText(last).includes('and now?'), 'the follow-up continues the conversation');
  }],
  ['@team: a command question raised while it runs is answered from the chat (the notification asks too; one answer wins)', async ({ root, api }) => {
    const config = vscode.workspace.getConfiguration('agentTeams');
    await config.update('toolApproval.bash', 'ask', vscode.ConfigurationTarget.Workspace);
    try {
      scriptLead([
        [{ call: { id: 'q1', name: 'bash', input: { command: 'echo asked > asked.txt' } } }],
        [{ text: 'Ran it.' }],
      ]);
      const rec = recorder();
      const done = Promise.resolve(api.chat!({ prompt: 'write asked.txt', command: undefined }, {}, rec.stream, new vscode.CancellationTokenSource().token));
      const allow = (await waitFor(() => rec.buttons.find((b) => b.title === 'Allow'), 30_000, 'an Allow button in the chat'))!;
      assert.match(rec.markdown.join(''), /\*\*lead\*\* wants to run `echo asked > asked\.txt`/);
      assert.equal(await vscode.commands.executeCommand(allow.command, ...(allow.arguments ?? [])), true);
      await within(done, 60_000, '@team request');
      assert.equal(await readFile(join(root, 'asked.txt'), 'utf8'), 'asked\n');
      assert.match(rec.markdown.join(''), /Ran it\./);
      // The same question cannot be answered twice.
      assert.equal(await vscode.commands.executeCommand(allow.command, ...(allow.arguments ?? [])), false);
    } finally {
      await config.update('toolApproval.bash', undefined, vscode.ConfigurationTarget.Workspace);
    }
  }],
  ['@team: a plan submitted while it runs is approved from the chat', async ({ team, api }) => {
    let planned = false;
    fakeLm().respond = (req) => {
      const who = agentOf(req);
      const n = fakeLm().requests.filter((r) => agentOf(r) === who).length;
      if (who === 'pia') {
        if (!planned) return (planned = true, [{ call: { id: `p${n}`, name: 'plan_approval', input: { plan: 'Step 1: write plan.txt' } } }]);
        return [{ call: { id: `p${n}`, name: 'idle', input: {} } }];
      }
      // The lead spawns pia in plan mode, then takes its time, so the plan arrives during its turn.
      if (!JSON.stringify(req.messages).includes('Spawned pia')) {
        return [{ call: { id: `l${n}`, name: 'spawn_teammate', input: { name: 'pia', role: 'dev', prompt: 'Plan, then write plan.txt.', plan_mode_required: true } } }];
      }
      return [{ text: 'Waiting for the plan.', delayMs: 6000 }];
    };
    const rec = recorder();
    const done = Promise.resolve(api.chat!({ prompt: 'get pia to plan', command: undefined }, {}, rec.stream, new vscode.CancellationTokenSource().token));
    const approve = (await waitFor(() => rec.buttons.find((b) => b.command === 'agentTeams.approvePlan'), 30_000, 'an Approve Plan button'))!;
    assert.match(rec.markdown.join(''), /\*\*pia\*\* asks you to approve its plan:[\s\S]*Step 1: write plan\.txt/);
    await vscode.commands.executeCommand(approve.command, ...(approve.arguments ?? []));
    const id = (approve.arguments?.[0] as { requestId: string }).requestId;
    assert.equal((await team.requests.get(id))?.status, 'approved');
    await within(done, 60_000, '@team request');
  }],
  ['@team /spawn, /status and /tasks answer from the team', async ({ team, api }) => {
    fakeLm().respond = () => [{ call: { id: 'i1', name: 'idle', input: {} } }];
    const spawned = recorder();
    await within(Promise.resolve(api.chat!({ prompt: 'sam tester: say hi --model vscode:fake-lm/fake-tools', command: 'spawn' }, {}, spawned.stream, new vscode.CancellationTokenSource().token)), 30_000, '/spawn');
    assert.match(spawned.markdown.join(''), /Spawned \*\*sam\*\* \(tester\) on vscode:fake-lm\/fake-tools/);
    assert.equal((await team.roster.get('sam'))?.model, 'vscode:fake-lm/fake-tools');
    await team.tasks.create({ subject: 'chat task' });
    const status = recorder();
    await api.chat!({ prompt: '', command: 'status' }, {}, status.stream, new vscode.CancellationTokenSource().token);
    assert.match(status.markdown.join(''), /\| sam \| tester \| [^|]+ \| fake-lm\/fake-tools \(vscode\) \|/);
    assert.match(status.markdown.join(''), /1 pending/);
    const tasks = recorder();
    await api.chat!({ prompt: '', command: 'tasks' }, {}, tasks.stream, new vscode.CancellationTokenSource().token);
    assert.match(tasks.markdown.join(''), /\*\*#\d+\*\* chat task/);
  }],
];
