// The provider edge's pure parts: model ids with provider prefixes, and the loop's Anthropic
// conversation as neutral chat turns (docs/models.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArguments, toChatTurns } from '../../src/core/model/chat-convert';
import { parseModelId } from '../../src/core/model/provider-id';
import { resolveModel } from '../../src/core/roles/models';
import { estimateCost } from '../../src/core/runtime/pricing';
import { spendWords, modelWords } from '../../src/core/session/team-words';

test('model ids: bare and anthropic: are Anthropic, openai: and vscode: name theirs, an unknown prefix is refused', () => {
  assert.deepEqual(parseModelId('claude-sonnet-4-5'), { ok: true, provider: 'anthropic', model: 'claude-sonnet-4-5' });
  assert.deepEqual(parseModelId('anthropic:claude-opus-4-5'), { ok: true, provider: 'anthropic', model: 'claude-opus-4-5' });
  assert.deepEqual(parseModelId('openai:gpt-4.1'), { ok: true, provider: 'openai', model: 'gpt-4.1' });
  assert.deepEqual(parseModelId('vscode:copilot/gpt-4o'), { ok: true, provider: 'vscode', model: 'copilot/gpt-4o' });
  // Ids that merely contain a colon stay Anthropic's: Bedrock ids and ARNs.
  assert.deepEqual(parseModelId('anthropic.claude-3-5-sonnet-20240620-v1:0'), { ok: true, provider: 'anthropic', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' });
  assert.equal(parseModelId('arn:aws:bedrock:us-east-1:1:inference-profile/x').ok, true);
  const bad = parseModelId('gemini:pro');
  assert.ok(!bad.ok && /unknown model provider "gemini:"/.test(bad.error));
  assert.ok(!parseModelId('openai:').ok);
  assert.ok(!parseModelId('vscode:a/b/c').ok);
  // Where a model is chosen (spawn, definitions, the command), the same rule.
  assert.deepEqual(resolveModel('openai:gpt-4.1', 'claude-sonnet-4-5'), { ok: true, model: 'openai:gpt-4.1' });
  const r = resolveModel('gemini:pro', 'claude-sonnet-4-5');
  assert.ok(!r.ok && /unknown model provider/.test(r.error));
});

test('the conversation as chat turns: tool results follow their call, then the words; errors marked', () => {
  const turns = toChatTurns([{ type: 'text', text: 'You are lead.' }], [
    { role: 'user', content: 'build it' },
    { role: 'assistant', content: [{ type: 'text', text: 'On it.' }, { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'make' } }, { type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'a' } }] },
    { role: 'user', content: [
      { type: 'tool_result', tool_use_id: 't1', content: 'failed', is_error: true },
      { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'abc' }] },
      { type: 'text', text: 'mail' },
    ] },
  ]);
  assert.deepEqual(turns, [
    { role: 'system', text: 'You are lead.' },
    { role: 'user', text: 'build it' },
    { role: 'assistant', text: 'On it.', calls: [{ id: 't1', name: 'bash', input: { command: 'make' } }, { id: 't2', name: 'read_file', input: { path: 'a' } }] },
    { role: 'tool', callId: 't1', name: 'bash', text: 'failed', isError: true },
    { role: 'tool', callId: 't2', name: 'read_file', text: 'abc', isError: false },
    { role: 'user', text: 'mail' },
  ]);
  assert.deepEqual(parseArguments('{"a":1}'), { a: 1 });
  assert.deepEqual(parseArguments(''), {});
  assert.deepEqual(parseArguments('{"a":'), { _unparsed_arguments: '{"a":' });
});

test('only Anthropic models are priced; a provider without usage reads "usage unknown"; rows name the provider', () => {
  const u = { input: 1_000_000, output: 0, cache_read: 0, cache_write: 0 };
  assert.deepEqual(estimateCost('anthropic:claude-sonnet-4-5', u), { usd: 3, known: true });
  assert.equal(estimateCost('vscode:copilot/claude-sonnet-4', u).known, false);
  assert.equal(estimateCost('openai:gpt-4.1', u).known, false);
  assert.equal(spendWords({ input: 0, output: 0, cache_read: 0, cache_write: 0, unreported: 3 }, 'vscode:copilot/gpt-4o'), 'usage unknown');
  assert.equal(spendWords(undefined, 'openai:x'), undefined);
  assert.equal(modelWords('openai:gpt-4.1'), 'gpt-4.1 (openai)');
  assert.equal(modelWords('claude-sonnet-4-5'), 'claude-sonnet-4-5 (anthropic)');
});
