// Huge and damaged JSON-lines files (docs/file-formats.md): reading is streaming and linear
// with bounded memory, an over-long line is skipped with a report, and resuming an agent
// reads its transcript only from the last compaction on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, open, readdir, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { readJsonLines } from '../../src/core/team/jsonl';
import { Team } from '../../src/core/team/team';
import { Transcript } from '../../src/core/runtime/transcript';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { tempDir } from '../helpers/tmp';

/** A file of `bytes` zero bytes with no newline, made sparse (instant, no disk used). */
async function sparse(path: string, bytes: number): Promise<void> {
  const fh = await open(path, 'w');
  await fh.truncate(bytes);
  await fh.close();
}

/** Runs `fn` sampling RSS every 10 ms; returns its result and the peak growth in MB. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; growthMb: number; ms: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growthMb: (peak - base) / 2 ** 20, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

test('an inbox line of 300 MB with no newline is skipped with a report, in linear time and bounded memory; the message after it arrives', { timeout: 120_000 }, async (t) => {
  const team = await new Team(await tempDir(t)).init();
  t.after(() => team.dispose());
  await team.spawnMember('alice', 'coder');
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  const inbox = team.paths.inbox('alice');
  await sparse(inbox, 300 * 2 ** 20);
  await appendFile(inbox, '\n');
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'after the junk' });
  const r = await peakRss(() => team.mailbox.unread('alice'));
  assert.deepEqual(r.value.messages.map((m) => m.content), ['after the junk']);
  assert.ok(problems.some((p) => p.path === inbox && /line at byte 0 is longer than \d+ bytes: skipped/.test(p.message)), JSON.stringify(problems));
  assert.ok(r.growthMb < 150, `memory grew ${r.growthMb.toFixed(0)} MB reading a 300 MB line`);
  assert.ok(r.ms < 20_000, `took ${r.ms.toFixed(0)} ms`);
});

test('a line still being written (no newline yet) is left for the next read, not skipped', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'x.jsonl');
  await writeFile(path, '{"id":"a","n":1}\n{"id":"b","n":');
  const first = await readJsonLines(path);
  assert.deepEqual(first.records.map((r) => r.value), [{ id: 'a', n: 1 }]);
  await appendFile(path, '2}\n');
  const second = await readJsonLines(path, first.nextOffset);
  assert.deepEqual(second.records.map((r) => r.value), [{ id: 'b', n: 2 }]);
});

test('resuming reads a transcript from its last compaction on: a 1 GB history before it is not read', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'lead.jsonl');
  // A gigabyte of history with no newline (sparse), then a compaction and what followed it.
  await sparse(path, 2 ** 30);
  const tr = new Transcript(path);
  await appendFile(path, '\n');
  await tr.append({ role: 'user', content: 'before the reset' }, 7);
  await tr.reset([{ role: 'user', content: 'summary' }], 40);
  await tr.append({ role: 'assistant', content: 'after' });
  await tr.append({ role: 'user', content: 'mail' }, 55);
  const r = await peakRss(() => tr.restore());
  assert.deepEqual(r.value.messages, [
    { role: 'user', content: 'summary' }, { role: 'assistant', content: 'after' }, { role: 'user', content: 'mail' },
  ]);
  assert.equal(r.value.inboxCursor, 55);
  assert.ok(r.ms < 1000, `restore took ${r.ms.toFixed(0)} ms`);
  assert.ok(r.growthMb < 50, `memory grew ${r.growthMb.toFixed(0)} MB`);
});

test('a transcript without a compaction is restored whole; the reset record keeps the mail cursor', async (t) => {
  const dir = await tempDir(t);
  const tr = new Transcript(join(dir, 'amy.jsonl'));
  await tr.append({ role: 'user', content: 'one' }, 10);
  await tr.append({ role: 'assistant', content: 'two' });
  assert.deepEqual((await tr.restore()).messages.map((m) => m.content), ['one', 'two']);
  await tr.reset([{ role: 'user', content: 'sum' }], 10);
  const r = await tr.restore();
  assert.deepEqual(r.messages.map((m) => m.content), ['sum']);
  assert.equal(r.inboxCursor, 10);
});

test('temp files of a writer killed between write and rename are cleaned at start; a live writer\'s stay', async (t) => {
  const root = await tempDir(t);
  await new Team(root).init();
  // A pid that is surely gone: a child that has exited.
  const dead = await new Promise<number>((resolve) => {
    const c = spawn(process.execPath, ['-e', '0']);
    c.on('exit', () => resolve(c.pid!));
  });
  const tasks = join(root, '.tasks');
  const stale = join(tasks, `.generation.tmp-${dead}-deadbeef`);
  const young = join(tasks, `task_1.json.tmp-${dead}-0badf00d`);
  const live = join(tasks, `.generation.tmp-${process.pid}-cafebabe`);
  for (const f of [stale, young, live]) await writeFile(f, '{"gen":');
  const old = new Date(Date.now() - 3600_000);
  await utimes(stale, old, old);
  await utimes(live, old, old);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  const left = await readdir(tasks);
  assert.ok(!left.includes(basename(stale)), 'the dead writer\'s old temp file is removed');
  assert.ok(left.includes(basename(young)), 'a recent one is left (its writer may be on another machine)');
  assert.ok(left.includes(basename(live)), 'a live writer\'s is left');
});
