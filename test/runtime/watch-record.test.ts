// What a reader of an agent's work relies on: its transcript reads back as text, tool calls
// with results, mail with its sender and per-round usage (live and from the file, the same),
// and every write it made is recorded with before/after and can be reverted safely.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChangeLog } from '../../src/core/watch/change-log';
import { revertChange } from '../../src/core/watch/changes';
import { ItemBuilder } from '../../src/core/watch/transcript-items';
import { allItems } from '../../src/core/watch/transcript-reader';
import type { TranscriptItem } from '../../src/shared/transcript-items';
import { toRows } from '../../src/shared/transcript-rows';
import { formatMail, identityBlock } from '../../src/core/runtime/prompts';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

test('a teammate\'s transcript reads back with its words, tool calls and results, mail and usage, live and from the file alike', async (t) => {
  const h = await harness(t);
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'notes' });
  await partsOf(h.rt).team.tasks.claim(task.id, 'alice');
  h.api.script('alice',
    reply('Writing the notes now.', toolUse('write_file', { path: 'notes.md', content: '# Notes\n' })),
    reply(toolUse('edit_file', { path: 'notes.md', old_text: '# Notes', new_text: '# Notes\n\nDone.' })),
    reply(toolUse('send_message', { to: 'lead', content: 'notes.md is ready' })),
    // Completed before idling: an idle owner of a task in progress is told to resume it (a fifth round).
    reply(toolUse('task_update', { task_id: task.id, status: 'completed' }), toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'alice', role: 'writer', prompt: 'Write notes.md.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('alice'))?.status === 'idle' && h.api.requests('alice').length >= 4, 30_000, 'alice idle');

  const fromFile = await allItems(partsOf(h.rt).team.paths.transcript('alice'), 'alice');
  const live = new Map<string, TranscriptItem>();
  const b = new ItemBuilder('alice');
  for (const e of h.events) for (const c of b.live(e)) c.op === 'put' ? live.set(c.item.key, c.item) : live.delete(c.key);
  for (const items of [fromFile, [...live.values()]]) {
    const kinds = items.map((i) => i.kind);
    assert.ok(kinds.includes('prompt'), 'the spawn prompt');
    const text = items.find((i) => i.kind === 'text');
    assert.equal(text?.kind === 'text' && text.text, 'Writing the notes now.');
    const tools = items.filter((i) => i.kind === 'tool');
    assert.deepEqual(tools.map((i) => i.kind === 'tool' && i.tool), ['write_file', 'edit_file', 'send_message', 'task_update', 'idle']);
    assert.ok(tools.every((i) => i.kind === 'tool' && !i.running && i.result !== undefined), 'every call has its result');
  }
  assert.equal(fromFile.filter((i) => i.kind === 'usage').length, 4, 'one usage record per round');

  // Summary folds tool churn; mail out stays visible as mail.
  const summary = toRows(fromFile, 'summary', 'alice');
  assert.deepEqual(summary.map((r) => r.kind).filter((k) => k !== 'prompt'), ['text', 'group', 'mail_out', 'group']);
  assert.equal(summary.find((r) => r.kind === 'mail_out')?.body, 'notes.md is ready');
  const normal = toRows(fromFile, 'normal', 'alice');
  assert.equal(normal.filter((r) => r.kind === 'tool').length, 4);
  assert.equal(toRows(fromFile, 'verbose', 'alice').filter((r) => r.kind === 'usage').length, 4);

  // Both writes are recorded, with the task alice was working on and the content either side.
  const log = new ChangeLog(h.root);
  const { changes } = await log.list('alice');
  assert.deepEqual(changes.map((c) => [c.tool, c.path, c.task, c.root]), [['write_file', 'notes.md', task.id, ''], ['edit_file', 'notes.md', task.id, '']]);
  assert.equal(changes[0]!.before, null);
  assert.equal((await log.content(changes[1]!.before))?.toString(), '# Notes\n');
  assert.equal((await log.content(changes[1]!.after))?.toString(), '# Notes\n\nDone.\n');

  // Reverting the first change is refused: the file no longer holds what it wrote.
  const refused = await revertChange(log, changes[0]!);
  assert.equal(refused.ok, false);
  assert.match(refused.message, /notes\.md has changed since alice's change/);
  // Reverting the edit restores the content before it, and is itself recorded.
  const done = await revertChange(log, changes[1]!);
  assert.equal(done.ok, true, done.message);
  assert.equal(await readFile(join(h.root, 'notes.md'), 'utf8'), '# Notes\n');
  const user = (await log.list('user')).changes;
  assert.equal(user[0]?.reverts, changes[1]!.id);
  // Now the first change can be undone: the file it created is removed.
  assert.equal((await revertChange(log, changes[0]!)).ok, true);
  await assert.rejects(readFile(join(h.root, 'notes.md')), /ENOENT/);
});

test('binary and hand-edited files: recorded without content, revert says why not', async (t) => {
  const h = await harness(t);
  const log = new ChangeLog(h.root);
  h.api.script('bo',
    reply(toolUse('write_file', { path: 'a.txt', content: 'one\n' })),
    reply(toolUse('write_file', { path: 'a.txt', content: 'two\n' })),
    reply(toolUse('idle', {})),
  );
  await writeFile(join(h.root, 'a.txt'), Buffer.from([0, 1, 2, 3]));
  await h.rt.spawnTeammate({ name: 'bo', role: 'r', prompt: 'go' });
  await waitFor(async () => (await log.list('bo')).changes.length === 2, 30_000, 'two changes');
  const [first, second] = (await log.list('bo')).changes;
  assert.deepEqual(first!.before && { stored: first!.before.stored, why: first!.before.why, bytes: first!.before.bytes }, { stored: false, why: 'binary', bytes: 4 });
  // Changed by hand after the agent's write: nothing is touched.
  await writeFile(join(h.root, 'a.txt'), 'mine\n');
  const r = await revertChange(log, second!);
  assert.equal(r.ok, false);
  assert.match(r.message, /has changed since bo's change \(by hand or by a later change\)/);
  assert.equal(await readFile(join(h.root, 'a.txt'), 'utf8'), 'mine\n');
  // Binary before-content cannot be restored, and it says so.
  await writeFile(join(h.root, 'a.txt'), 'one\n');
  const b = await revertChange(log, first!);
  assert.equal(b.ok, false);
  assert.match(b.message, /was not recorded \(it was binary\)/);
});

test('a planted symbolic link in .team/changes is never written through', async (t) => {
  const h = await harness(t);
  const outside = join(h.root, '..', `outside-${process.pid}-${Date.now()}.txt`);
  await writeFile(outside, 'keep\n');
  t.after(() => rm(outside, { force: true }));
  await mkdir(join(h.root, '.team', 'changes'), { recursive: true });
  await symlink(outside, join(h.root, '.team', 'changes', 'cy.jsonl'));
  h.api.script('cy', reply(toolUse('write_file', { path: 'x.txt', content: 'x' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'cy', role: 'r', prompt: 'go' });
  await waitFor(() => h.api.requests('cy').length >= 2, 30_000, 'cy ran');
  // The write itself went through; its record was refused rather than appended to the link's target.
  assert.equal(await readFile(join(h.root, 'x.txt'), 'utf8'), 'x');
  assert.equal(await readFile(outside, 'utf8'), 'keep\n');
});

test('a transcript reads in the reader\'s words: no identity line, no request ids, typed mail said in words, tokens only in the verbose view', () => {
  const b = new ItemBuilder('ari');
  const id = { name: 'ari', role: 'architect', team: 'demo' };
  const mail = (m: Record<string, unknown>) => ({ kind: 'msg', message: { role: 'user', content: [{ type: 'text', text: formatMail({ id: `m${Math.random()}`, from: 'lead', to: 'ari', timestamp: 1, content: '', ...m } as never) }] } });
  const lines = [
    { kind: 'msg', message: { role: 'user', content: `${identityBlock(id)}\nDesign the cache.` } },
    mail({ type: 'plan_approval_response', request_id: 'req_123abc', approve: true, content: 'Go ahead.' }),
    mail({ type: 'plan_approval_response', request_id: 'req_456def', approve: false, content: 'Too broad.' }),
    mail({ type: 'shutdown_request', request_id: 'req_789', content: 'Wrap up.' }),
    { kind: 'event', event: { type: 'usage', input: 10, output: 2, cache_read: 0, cache_write: 0 } },
  ];
  const items = lines.flatMap((l) => b.entry(l)).flatMap((c) => (c.op === 'put' ? [c.item] : []));
  const normal = toRows(items, 'normal', 'ari');
  const prompt = normal.find((r) => r.kind === 'prompt');
  assert.equal(prompt?.body, 'Design the cache.', 'the identity line is the model\'s, not the reader\'s');
  assert.deepEqual(normal.filter((r) => r.kind === 'mail_in').map((r) => r.head), ['plan approved', 'plan rejected', 'asks to shut down']);
  assert.ok(!JSON.stringify(normal).includes('req_'), 'no request id is shown');
  assert.equal(normal.filter((r) => r.kind === 'usage').length, 0, 'no token row after every step (the header has the total)');
  assert.equal(toRows(items, 'verbose', 'ari').filter((r) => r.kind === 'usage').length, 1);
});
