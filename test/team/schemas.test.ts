// Every team file's schema in one place (src/shared/schemas), the transcript's included: the
// file formats page points there and names no file without a schema, and every transcript
// reader checks a line before using it — a malformed one is skipped with a notice or a report,
// never a crash, and nothing else of the file is lost.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Transcript } from '../../src/core/runtime/transcript';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { TranscriptFollower } from '../../src/core/watch/transcript-reader';
import { parseTranscriptLine, TEAM_FILES } from '../../src/shared/schemas';
import type { TranscriptItem } from '../../src/shared/transcript-items';
import { tempDir } from '../helpers/tmp';

test('the file formats page points at the schemas, and each file of its folder picture has one', async () => {
  const doc = await readFile(join(process.cwd(), 'docs', 'file-formats.md'), 'utf8');
  assert.match(doc, /src\/shared\/schemas/);
  const picture = /```\n<team folder>\/\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const files = picture.split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '')
    // Locks hold the one lock body (file-lock.ts); folders hold files listed on their own.
    .filter((p) => p && !p.endsWith('.lock') && !p.endsWith('/'));
  assert.ok(files.length >= 12, `read the picture: ${files.join(' ')}`);
  const known = new Set(TEAM_FILES.map((f) => f.path));
  assert.deepEqual(files.filter((p) => !known.has(p)), [], 'every file drawn has a schema in TEAM_FILES');
  for (const f of TEAM_FILES) assert.ok(doc.includes(`## ${f.section.split(' (')[0]}`) || doc.includes(`### ${f.section}`) || f.path === '.mcp.json', `${f.path}: section ${f.section}`);
});

const lines = [
  { id: 'm1', kind: 'msg', ts: 1, message: { role: 'user', content: 'Go.' } },
  // JSON, but not an entry: a message without content blocks of any type.
  { id: 'm2', kind: 'msg', ts: 2, message: { role: 'assistant', content: [{ text: 'no type' }] } },
  { id: 'e1', kind: 'event', ts: 3, event: { type: 'notice', level: 'info' } },
  { id: 'x1', kind: 'summary-v9', ts: 4, anything: true },
  { id: 'm3', kind: 'msg', ts: 5, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
];

test('a transcript line that is JSON but no entry is shown as a damaged line with the reason; the lines around it show', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'alice.jsonl');
  await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const items = new Map<string, TranscriptItem>();
  const f = new TranscriptFollower(path, 'alice', (c) => (c.op === 'put' ? items.set(c.item.key, c.item) : items.delete(c.key)));
  await f.load();
  const notices = [...items.values()].filter((i) => i.kind === 'notice' && i.what === 'skipped');
  assert.equal(notices.length, 2, 'the message without block types and the notice without text');
  for (const n of notices) {
    assert.ok(n.kind === 'notice' && /A damaged line at byte \d+ of the transcript was skipped\./.test(n.text));
    assert.ok(n.kind === 'notice' && n.detail && n.detail.length > 0, 'with the reason');
  }
  assert.ok(notices.some((n) => n.kind === 'notice' && /message\.content/.test(n.detail ?? '')), 'names the field');
  const texts = [...items.values()].filter((i) => i.kind === 'prompt' || i.kind === 'text').map((i) => (i.kind === 'prompt' || i.kind === 'text' ? i.text : ''));
  assert.deepEqual(texts, ['Go.', 'Done.'], 'the lines before and after show; a kind of a newer version is skipped quietly');
});

test('resuming skips a damaged entry with a report: the conversation around it is restored and the file is unchanged', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'alice.jsonl');
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  await writeFile(path, text);
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  const r = await new Transcript(path).restore();
  assert.deepEqual(r.messages, [lines[0]!.message, lines[4]!.message]);
  assert.equal(problems.length, 1, problems.map((p) => p.message).join('; '));
  assert.equal(problems[0]!.path, path);
  assert.match(problems[0]!.message, /line at byte \d+ is not a transcript entry \(message\.content.*\): skipped/);
  assert.equal(await readFile(path, 'utf8'), text, 'nothing rewritten');
});

test('each kind of transcript line the writer makes passes its schema', () => {
  for (const v of [
    { id: 'a', kind: 'msg', ts: 1, message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: {} }] }, inbox_cursor: 12, epoch: 2 },
    { id: 'b', kind: 'reset', ts: 1, messages: [{ role: 'user', content: 'summary' }] },
    { id: 'c', kind: 'event', ts: 1, event: { type: 'usage', input: 1, output: 2, cache_read: 0, cache_write: 0 } },
    { id: 'd', kind: 'event', ts: 1, event: { type: 'tool_result', id: 't', tool: 'bash', is_error: false, text: 'x', chars: 1 } },
    { id: 'e', kind: 'event', ts: 1, event: { type: 'hook', event: 'PreToolUse', command: 'x', exit_code: null, ms: 3, timed_out: true, blocked: false, output: '' } },
    { id: 'f', kind: 'event', ts: 1, event: { type: 'text', attempt: 0, text: 'hi' } },
    { id: 'g', kind: 'event', ts: 1, event: { type: 'someday', whatever: 1 } },
  ]) assert.ok(parseTranscriptLine(v).ok, JSON.stringify(v));
  assert.deepEqual(parseTranscriptLine(42), { ok: false, reason: 'not a JSON object' });
});
