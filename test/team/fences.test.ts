// Fencing tokens (src/core/team/fences.ts, issue 12 item 2): once a host took an agent on, the
// storage refuses transcript lines and cursor moves from the host that ran it before, and
// readers skip what such a host slipped in between its check and its append.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { FencedError } from '../../src/core/team/fences';
import { appendJsonLine } from '../../src/core/team/jsonl';
import { Team } from '../../src/core/team/team';
import { Transcript } from '../../src/core/runtime/transcript';
import { writeJsonAtomic } from '../../src/core/util/atomic-file';
import { tempDir } from '../helpers/tmp';

async function setup(t: Parameters<typeof tempDir>[0]) {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  const path = team.paths.transcript('amy');
  const writer = async (host: string) => {
    const tr = new Transcript(path);
    const epoch = await team.fences.open('amy', host);
    tr.fence = { epoch, check: () => team.fences.check('amy', epoch) };
    return { tr, epoch };
  };
  return { team, path, writer };
}

const user = (text: string) => ({ role: 'user' as const, content: text });

test('a host fenced out can no longer append to the transcript nor move the cursor', async (t) => {
  const { team, path, writer } = await setup(t);
  const a = await writer('host-a');
  await a.tr.append(user('from A before'), 10);
  await team.mailbox.ack('amy', 10, a.epoch);
  const b = await writer('host-b');
  assert.equal(b.epoch, a.epoch + 1);
  await assert.rejects(a.tr.append(user('from A after the takeover'), 20), FencedError);
  await assert.rejects(a.tr.reset([user('A compacts')], 20), FencedError);
  await assert.rejects(team.mailbox.ack('amy', 20, a.epoch), FencedError);
  assert.doesNotMatch(await readFile(path, 'utf8'), /after the takeover|A compacts/);
  assert.equal(await team.mailbox.cursor('amy'), 0, 'the cursor A moved is not B\'s: B goes by the transcript');
  await b.tr.append(user('from B'), 15);
  await team.mailbox.ack('amy', 15, b.epoch);
  assert.equal(await team.mailbox.cursor('amy'), 15);
  const r = await b.tr.restore(await team.fences.list('amy'));
  assert.deepEqual(r.messages.map((m) => m.content), ['from A before', 'from B']);
  assert.equal(r.inboxCursor, 15);
});

test('lines and a cursor a paused host slipped in after the fence are ignored by every reader', async (t) => {
  const { team, path, writer } = await setup(t);
  const a = await writer('host-a');
  await a.tr.append(user('one'), 5);
  await a.tr.reset([user('summary by A')], 5);
  await a.tr.append(user('two'));
  const b = await writer('host-b');
  // A was frozen between its check and its append: the lines land after B's fence.
  await appendJsonLine(path, { id: 'x1', kind: 'msg', message: user('stale A line'), inbox_cursor: 99, epoch: a.epoch });
  await appendJsonLine(path, { id: '00000000-0000-0000-0000-000000000000', kind: 'reset', messages: [user('stale A summary')], inbox_cursor: 99, epoch: a.epoch });
  await appendJsonLine(path, { id: 'x3', kind: 'msg', message: user('a line of a host without fences') });
  await writeCursor(team, 99, a.epoch);
  await b.tr.append(user('three'));
  const r = await b.tr.restore(await team.fences.list('amy'));
  assert.deepEqual(r.messages.map((m) => m.content), ['summary by A', 'two', 'three']);
  assert.equal(r.inboxCursor, 5);
  assert.equal(await team.mailbox.cursor('amy'), 0);
});

function writeCursor(team: Team, offset: number, epoch: number): Promise<void> {
  return writeJsonAtomic(team.paths.cursor('amy'), { offset, epoch });
}
