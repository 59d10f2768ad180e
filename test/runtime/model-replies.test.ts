// Odd replies and failures from the model, as the real API and proxies produce them: usage
// without counts, an empty reply, a tool call cut off at max_tokens, a prompt the API finds
// too long, compaction calls counted against the budget, a key that turns up in tool output.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fault, reply, text, toolUse, type ReplyTurn } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, sentText } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

const idleStatus = (h: Awaited<ReturnType<typeof harness>>, name: string) => async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle';

test('a reply whose usage has no token counts leaves the roster valid and counts nothing', async (t) => {
  const h = await harness(t);
  h.api.script('amy', { ...reply(toolUse('idle', {})), usage: 'missing' });
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Go.' });
  await waitFor(idleStatus(h, 'amy'), 5000, 'amy idle');
  const config = JSON.parse(await readFile(join(h.root, '.team', 'config.json'), 'utf8'));
  const amy = config.members.find((m: { name: string }) => m.name === 'amy');
  assert.deepEqual(amy.usage, { input: 0, output: 0, cache_read: 0, cache_write: 0 });
  assert.equal(h.events.some((e) => e.type === 'notice' && e.level === 'error'), false);
});

test('an empty reply is not sent back as an empty assistant message', async (t) => {
  const h = await harness(t);
  h.api.script('bea', reply(toolUse('task_list', {})), reply(), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bea', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.api.requests('bea').length === 2, 5000, 'second request');
  await waitFor(idleStatus(h, 'bea'), 5000, 'bea idle');
  await userSends(h.rt, 'bea', 'One more thing.');
  await waitFor(() => h.api.requests('bea').length === 3, 5000, 'third request');
  const messages = h.api.requests('bea')[2]!.body.messages as Array<{ role: string; content: unknown }>;
  for (const m of messages) assert.ok(typeof m.content === 'string' || (m.content as unknown[]).length > 0, `empty ${m.role} message`);
  for (let i = 1; i < messages.length; i++) assert.notEqual(messages[i]!.role, messages[i - 1]!.role, 'roles alternate');
  assert.match(sentText(h.api, 'bea'), /One more thing\./);
});

test('a tool call cut off at max_tokens is not run; the model is told why', async (t) => {
  const h = await harness(t);
  const cut: ReplyTurn = {
    type: 'reply', stopReason: 'max_tokens',
    content: [{ type: 'text', text: 'Writing it.' }, { type: 'tool_use', name: 'write_file', input: {}, partialJson: '{"path": "out.txt", "content": "AAAA' }],
  };
  h.api.script('cid', cut, reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'cid', role: 'dev', prompt: 'Write out.txt.' });
  await waitFor(() => h.api.requests('cid').length === 2, 5000, 'second request');
  const last = h.api.requests('cid')[1]!.body.messages.at(-1) as { content: Array<{ type: string; is_error?: boolean; content?: string }> };
  const result = last.content.find((b) => b.type === 'tool_result')!;
  assert.equal(result.is_error, true);
  assert.match(String(result.content), /max_tokens/);
  await assert.rejects(readFile(join(h.root, 'out.txt')), 'nothing was written');
});

test('a 400 "prompt is too long" compacts the conversation and asks again, once', async (t) => {
  const h = await harness(t);
  h.api.script('dee',
    reply(toolUse('task_list', {})),
    fault.badRequest('prompt is too long: 210000 tokens > 200000 maximum'),
    'Summary: dee listed the tasks.',
    reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'dee', role: 'dev', prompt: 'Go.' });
  await waitFor(idleStatus(h, 'dee'), 5000, 'dee idle');
  const reqs = h.api.requests('dee');
  assert.deepEqual(reqs.map((r) => r.outcome), ['reply', 'error:400', 'reply', 'reply']);
  assert.match(JSON.stringify(reqs[2]!.body.system), /summarising your own earlier work/);
  // The retried request carries the compacted conversation, identity restated.
  assert.equal(reqs[3]!.body.messages.length, 1);
  assert.match(sentText(h.api, 'dee'), /You are dee/);
  assert.equal(h.events.some((e) => e.type === 'notice' && e.level === 'error'), false);
});

test('the summary call of a compaction is counted in the roster like any other', async (t) => {
  const h = await harness(t, { compactAtTokens: 1500 });
  let work = 0;
  h.api.setDefault((r) => {
    if (JSON.stringify(r.body.system).includes('summarising')) return 'Summary: eve listed tasks.';
    // Replies that fill the context: a summary needs something before the unanswered turn.
    return ++work < 4 ? reply(text('Context. '.repeat(400)), toolUse('task_list', {})) : reply(toolUse('idle', {}));
  });
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Go.' });
  await waitFor(idleStatus(h, 'eve'), 10_000, 'eve idle');
  assert.ok(h.api.requests('eve').some((r) => JSON.stringify(r.body.system).includes('summarising')), 'a compaction happened');
  const served = h.api.usage('eve');
  const usage = (await partsOf(h.rt).team.roster.get('eve'))!.usage!;
  assert.deepEqual(usage, { input: served.input, output: served.output, cache_read: served.cacheRead, cache_write: served.cacheWrite });
});

test('the API key in a file or command output never reaches the transcript or the model', async (t) => {
  const h = await harness(t);
  // The harness's model client uses (and so registers) this key.
  await writeFile(join(h.root, '.env'), 'ANTHROPIC_API_KEY=sk-test-secret\n');
  h.api.script('fay', reply(toolUse('read_file', { path: '.env' }), toolUse('bash', { command: 'cat .env' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'fay', role: 'dev', prompt: 'Look around.' });
  await waitFor(idleStatus(h, 'fay'), 5000, 'fay idle');
  const sent = sentText(h.api, 'fay');
  assert.match(sent, /ANTHROPIC_API_KEY=\[REDACTED\]/);
  assert.doesNotMatch(sent, /sk-test-secret/);
  assert.doesNotMatch(await readFile(join(h.root, '.team', 'transcripts', 'fay.jsonl'), 'utf8'), /sk-test-secret/);
});
