// Overlap warnings through the agents' file tools (real SDK, fake API, real git): two
// teammates in their own worktrees change the same file → each is told once, naming the file
// and the other; once one branch is merged, a later change in the main checkout does not
// clash with it (core/watch/overlaps.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { ChangeLog } from '../../src/core/watch/change-log';
import { mergeMarks, overlapsOf } from '../../src/core/watch/overlaps';
import { harness, type Harness } from './harness';
import { initRepo } from './git-helpers';

const overlapNotes = async (h: Harness, who: string) =>
  (await h.rt.team.mailbox.history(who)).filter((m) => m.content.startsWith('[overlap]')).map((m) => m.content);

test('two agents changing the same file, neither merged into the other\'s branch: each is told once; a merged branch no longer clashes', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt', { 'solo.txt': 'x\n' });
  h.api.script('ann', reply(toolUse('write_file', { path: 'shared.txt', content: 'ann 1\n' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit.', isolation: 'worktree' });
  await waitFor(async () => (await h.rt.team.roster.get('ann'))?.status === 'idle', 10_000, 'ann idle');
  h.api.script('ben',
    reply(toolUse('write_file', { path: 'shared.txt', content: 'ben 1\n' }), toolUse('write_file', { path: 'solo.txt', content: 'ben only\n' })),
    reply(toolUse('write_file', { path: 'shared.txt', content: 'ben 2\n' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'ben', role: 'dev', prompt: 'Edit.', isolation: 'worktree' });
  await waitFor(async () => (await overlapNotes(h, 'ann')).length === 1, 10_000, 'ann warned');
  await waitFor(async () => (await h.rt.team.roster.get('ben'))?.status === 'idle', 10_000, 'ben idle');
  const [toAnn] = await overlapNotes(h, 'ann');
  const toBen = await overlapNotes(h, 'ben');
  assert.match(toAnn!, /^\[overlap\] ben also changed shared\.txt \(in \.worktrees\/ben\), and neither change has been merged/);
  assert.equal(toBen.length, 1, 'told once, though ben changed it twice');
  assert.match(toBen[0]!, /^\[overlap\] ann also changed shared\.txt \(in \.worktrees\/ann\)/);
  assert.equal((await overlapNotes(h, 'ann')).length, 1);

  // What the Changes view marks: shared.txt for both, solo.txt for nobody.
  const log = new ChangeLog(h.root);
  let marks = overlapsOf((await log.list()).changes, await mergeMarks(h.root));
  assert.deepEqual([...(marks.get('ann\0shared.txt') ?? [])], ['ben']);
  assert.deepEqual([...(marks.get('ben\0shared.txt') ?? [])], ['ann']);
  assert.equal(marks.get('ben\0solo.txt'), undefined);

  // ann's branch is merged into main; the lead then changes shared.txt in main: it clashes with
  // ben's unmerged change (both told), not with ann's merged one.
  await h.rt.worktrees.merge('ann', { commitMessage: 'ann' });
  h.api.script('lead', reply(toolUse('write_file', { path: 'shared.txt', content: 'lead\n' })), 'ok');
  await h.rt.askLead('Edit shared.txt.');
  await waitFor(async () => (await overlapNotes(h, 'lead')).length === 1, 10_000, 'lead warned');
  assert.match((await overlapNotes(h, 'lead'))[0]!, /ben also changed shared\.txt/);
  marks = overlapsOf((await log.list()).changes, await mergeMarks(h.root));
  assert.deepEqual([...(marks.get('lead\0shared.txt') ?? [])], ['ben']);
  assert.equal((await overlapNotes(h, 'ann')).length, 1, 'ann, merged, is not told again');
});
