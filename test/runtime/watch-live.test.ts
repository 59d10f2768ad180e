// A view of an agent run by another host (the CLI running a teammate while VS Code shows its
// panel) follows the transcript file, so what it sees live is what the file holds as it is
// written: the streamed text of a reply (in `text` lines, before the reply is stored) and each
// tool call's result as that call ends (a `tool_result` line, before the round's message),
// read as soon as the file system reports an append.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import type { ItemChange } from '../../src/core/watch/transcript-items';
import { TranscriptFollower } from '../../src/core/watch/transcript-reader';
import type { TranscriptItem } from '../../src/shared/transcript-items';
import { reply, shaped, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

/** What a view following `path` shows, with the order in which items first appeared. */
function view(path: string, agent: string) {
  const items = new Map<string, TranscriptItem>();
  const firstSeen: string[] = [];
  const f = new TranscriptFollower(path, agent, (c: ItemChange) => {
    if (c.op === 'remove') return void items.delete(c.key);
    if (!items.has(c.item.key)) firstSeen.push(c.item.key);
    items.set(c.item.key, c.item);
  });
  return { f, items, firstSeen };
}

test('a teammate run elsewhere: its streamed text and each tool result reach a follower of the file before the round ends', async (t) => {
  const h = await harness(t);
  const text = 'Reading the files one by one before I change anything at all, then running both checks.';
  h.api.script('alice',
    shaped(reply(text, toolUse('bash', { command: 'echo FIRST-DONE' }, 'toolu_first'),
      toolUse('bash', { command: 'while [ ! -f go ]; do sleep 0.05; done; echo SECOND-DONE' }, 'toolu_second')), { delayMs: 60 }),
    reply(toolUse('idle', {})),
  );
  const v = view(partsOf(h.rt).team.paths.transcript('alice'), 'alice');
  await v.f.load();
  // A poll far slower than the test: what arrives in time arrives through the file watch.
  const stop = v.f.follow({ pollMs: 60_000 });
  t.after(stop);
  await h.rt.spawnTeammate({ name: 'alice', role: 'checker', prompt: 'Run the checks.' });

  // The reply's text shows while it streams: before the reply is stored (and its usage line).
  await waitFor(async () => v.items.get('live:text'), 15_000, 'streamed text in the file');
  const streamed = v.items.get('live:text');
  assert.ok(streamed?.kind === 'text' && streamed.streaming && text.startsWith(streamed.text) && streamed.text.length < text.length, 'part of the text, still streaming');
  assert.ok(![...v.items.values()].some((i) => i.kind === 'usage'), 'the reply is not stored yet');

  // The first call's result shows while the second still runs (the round is not over).
  await waitFor(async () => { const i = v.items.get('toolu_first'); return i?.kind === 'tool' && i.result !== undefined; }, 15_000, 'first result');
  const first = v.items.get('toolu_first');
  assert.ok(first?.kind === 'tool' && /FIRST-DONE/.test(first.result ?? ''));
  const second = v.items.get('toolu_second');
  assert.ok(second?.kind === 'tool' && second.running, 'the second call still runs');
  assert.ok(!v.items.has('live:text'), 'the stored reply replaced the streamed text');

  await writeFile(join(h.root, 'go'), '');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('alice'))?.status === 'idle', 30_000, 'alice idle');
  await waitFor(async () => { const i = v.items.get('toolu_second'); return i?.kind === 'tool' && /SECOND-DONE/.test(i.result ?? ''); }, 10_000, 'second result');
  const texts = [...v.items.values()].filter((i) => i.kind === 'text');
  assert.deepEqual(texts.map((i) => i.kind === 'text' && [i.text, !!i.streaming]), [[text, false]], 'one text, the stored one');
});

test('a follower sees each line another process appends, one at a time, through the file watch', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-follow-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'bob.jsonl');
  await writeFile(path, '');
  const lines = [
    { id: 'm1', kind: 'msg', ts: 1, message: { role: 'user', content: 'Go.' } },
    { id: 'e1', kind: 'event', ts: 2, event: { type: 'text', attempt: 0, text: 'Looking' } },
    { id: 'e2', kind: 'event', ts: 3, event: { type: 'text', attempt: 0, text: ' around.' } },
    { id: 'm2', kind: 'msg', ts: 4, message: { role: 'assistant', content: [{ type: 'text', text: 'Looking around.' }, { type: 'tool_use', id: 'tu1', name: 'bash', input: { command: 'ls' } }] } },
    { id: 'e3', kind: 'event', ts: 5, event: { type: 'tool_result', id: 'tu1', tool: 'bash', is_error: false, text: 'a.txt', chars: 5 } },
    { id: 'm3', kind: 'msg', ts: 6, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt' }] } },
    { id: 'e4', kind: 'event', ts: 7, event: { type: 'usage', input: 1, output: 2, cache_read: 0, cache_write: 0 } },
  ];
  // What the view shows after each line.
  const expect: Array<(items: Map<string, TranscriptItem>) => boolean> = [
    (i) => i.get('m1:0')?.kind === 'prompt',
    (i) => { const x = i.get('live:text'); return x?.kind === 'text' && x.text === 'Looking'; },
    (i) => { const x = i.get('live:text'); return x?.kind === 'text' && x.text === 'Looking around.'; },
    (i) => !i.has('live:text') && i.get('m2:0')?.kind === 'text' && i.get('tu1')?.kind === 'tool' && (i.get('tu1') as { running: boolean }).running,
    (i) => { const x = i.get('tu1'); return x?.kind === 'tool' && x.result === 'a.txt' && !x.running; },
    (i) => { const x = i.get('tu1'); return x?.kind === 'tool' && x.result === 'a.txt'; },
    (i) => i.has('e4'),
  ];
  const items = new Map<string, TranscriptItem>();
  let toolPuts = 0;
  const f = new TranscriptFollower(path, 'bob', (c) => {
    if (c.op === 'remove') return void items.delete(c.key);
    if (c.item.key === 'tu1') toolPuts++;
    items.set(c.item.key, c.item);
  });
  await f.load();
  const stop = f.follow({ pollMs: 60_000 });
  t.after(stop);
  // The writer: another process appending one line each time it is told to.
  const child = spawn(process.execPath, ['-e', `
    const fs = require('node:fs');
    const lines = ${JSON.stringify(lines.map((l) => JSON.stringify(l)))};
    let n = 0;
    require('node:readline').createInterface({ input: process.stdin }).on('line', () => {
      fs.appendFileSync(${JSON.stringify(path)}, lines[n++] + '\\n');
      process.stdout.write('wrote\\n');
      if (n === lines.length) process.exit(0);
    });`], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  const wrote = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  for (let k = 0; k < lines.length; k++) {
    child.stdin!.write('next\n');
    await wrote.next();
    await waitFor(async () => expect[k]!(items), 10_000, `the view after line ${k + 1}`);
  }
  // The round's message bringing the result already shown changed nothing: the call was put
  // twice (running, then its result), not a third time.
  assert.equal(toolPuts, 2);
});
