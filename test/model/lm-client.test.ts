// The `vscode:` provider's core half (src/core/model/lm-client.ts) over a fake LmHost: what the
// VS Code host is given, and what an agent is told when the model cannot serve it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createModelFactory, isAbortError, ModelError, type ChatTurn, type LmChatModel, type LmHost } from '../../src/core/model';

function model(family: string, over: Partial<LmChatModel> = {}): LmChatModel & { seen: ChatTurn[][] } {
  const seen: ChatTurn[][] = [];
  return {
    id: family, vendor: 'fake', family, name: `Fake ${family}`, maxInputTokens: 10_000, seen,
    async chat(turns, _tools, signal, onText) {
      seen.push(turns);
      if (family === 'slow') await new Promise((_, no) => signal.addEventListener('abort', () => no(new Error('cancelled')), { once: true }));
      onText('Hel');
      onText('lo');
      return { text: 'Hello', calls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }] };
    },
    ...over,
  };
}

function factory(models: LmChatModel[]) {
  const host: LmHost = {
    select: async (sel) => models.filter((m) => (!sel.vendor || m.vendor === sel.vendor) && (!sel.family || m.family === sel.family)),
    classify: () => undefined,
  };
  return createModelFactory({ anthropic: () => { throw new Error('none'); }, openai: () => { throw new Error('none'); }, vscode: host });
}

test('a vscode: model answers with text and tool calls; usage is said to be unknown; its context window sizes compaction', async () => {
  const m = model('tools');
  const c = factory([m])('vscode:fake/tools', () => {});
  const pieces: string[] = [];
  const r = await c.send({ system: 'You are vera.', messages: [{ role: 'user', content: 'go' }], onText: (d) => pieces.push(d) });
  assert.deepEqual(pieces, ['Hel', 'lo']);
  assert.deepEqual(r.content, [{ type: 'text', text: 'Hello' }, { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } }]);
  assert.equal(r.stopReason, 'tool_use');
  assert.equal(r.usage.unreported, true);
  assert.deepEqual(m.seen[0]![0], { role: 'system', text: 'You are vera.' });
  assert.equal(c.contextWindow?.(), 10_000);
});

test('a model without tool calling, or none matching, is refused with the reason and what VS Code has', async () => {
  const f = factory([model('tools'), model('plain', { toolCalling: false })]);
  const noTools = await f('vscode:fake/plain', () => {}).preflight!().then(() => null, (e: Error) => e);
  assert.ok(noTools instanceof ModelError && /cannot call tools/.test(noTools.message), String(noTools));
  const missing = await f('vscode:fake/nope', () => {}).preflight!().then(() => null, (e: Error) => e);
  assert.match(String(missing), /no VS Code language model matches vscode:fake\/nope; available: vscode:fake\/tools, vscode:fake\/plain/);
});

test('stop aborts a vscode: request in flight at once', async () => {
  const c = factory([model('slow')])('vscode:fake/slow', () => {});
  const stop = new AbortController();
  const p = c.send({ messages: [{ role: 'user', content: 'go' }], signal: stop.signal });
  await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  const e = await p.then(() => null, (err: Error) => err);
  assert.ok(isAbortError(e), String(e));
});
