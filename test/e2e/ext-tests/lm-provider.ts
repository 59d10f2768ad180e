// Runs inside code-server's extension host (test/e2e/vscode-lm-provider.test.ts): the
// `agent-teams` language model provider as any extension (and the Chat view) reaches it through
// vscode.lm — the models the Anthropic key reaches, a request streamed from the fake Messages
// API, a tool offered and its call returned, a tool result sent back in the user turn.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/vscode/activation/extension';

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<ExtensionApi>('agent-teams.agent-teams');
  assert.ok(ext);
  await (await ext.activate()).ready;
  const models = await vscode.lm.selectChatModels({ vendor: 'agent-teams' });
  const ids = models.map((m) => m.id);
  console.log(`ext-host ok - models offered: ${ids.join(', ')}`);
  assert.equal(ids[0], 'claude-sonnet-5-5', 'the team\'s model first');
  assert.ok(ids.includes('claude-opus-4-5') && ids.includes('claude-haiku-4-5'), ids.join(','));
  assert.ok(!ids.some((i) => i.startsWith('vscode:')));
  const model = models[0]!;

  const tool: vscode.LanguageModelChatTool = { name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } };
  const first = await model.sendRequest([vscode.LanguageModelChatMessage.User('PROVIDER-ASK: look up "team"')], { tools: [tool] });
  let text = '';
  const calls: vscode.LanguageModelToolCallPart[] = [];
  let chunks = 0;
  for await (const part of first.stream) {
    if (part instanceof vscode.LanguageModelTextPart) { text += part.value; chunks++; }
    else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  }
  assert.equal(text, 'Looking it up.');
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.name, 'lookup');
  assert.deepEqual(calls[0]!.input, { word: 'team' });
  console.log(`ext-host ok - a request streams text (${chunks} parts) and returns the tool call`);

  const second = await model.sendRequest([
    vscode.LanguageModelChatMessage.User('PROVIDER-ASK: look up "team"'),
    vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('Looking it up.'), calls[0]!]),
    vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(calls[0]!.callId, [new vscode.LanguageModelTextPart('a group working together')])]),
  ], { tools: [tool] });
  let answer = '';
  for await (const chunk of second.text) answer += chunk;
  assert.equal(answer, 'It means a group working together.');
  console.log('ext-host ok - the tool result goes back and the answer streams');
  assert.ok((await model.countTokens('four words here ok')) > 0);
}
