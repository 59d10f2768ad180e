// Overlap warnings through the agents' file tools (real SDK, fake API, real git): two
// teammates in their own worktrees change the same file → split work, nobody is told, the
// Changes view marks it; two agents in one tree, or a worktree and the main checkout → each is
// told once, naming the file and the other; once one branch is merged, a later change in the
// main checkout does not clash with it (core/watch/overlaps.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { ChangeLog } from '../../src/core/watch/change-log';
import { clash, mergeMarks, overlapsOf } from '../../src/core/watch/overlaps';
import { harness, type Harness } from './harness';
import { initRepo } from './git-helpers';
import { partsOf } from '../helpers/session-parts';

const overlapNotes = async (h: Harness, who: string) =>
  (await partsOf(h.rt).team.mailbox.history(who)).filter((m) => m.content.startsWith('[overlap]')).map((m) => m.content);

test('two teammates in their own worktrees change the same file: split work, no note to either (the merge queue reconciles it), but the Changes view marks it', async (t) => {
  const h = await harness(t);
  await initRepo(h.root, 'shared.txt', { 'solo.txt': 'x\n' });
  h.api.script('ann', reply(toolUse('write_file', { path: 'shared.txt', content: 'ann 1\n' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle', 10_000, 'ann idle');
  h.api.script('ben',
    reply(toolUse('write_file', { path: 'shared.txt', content: 'ben 1\n' }), toolUse('write_file', { path: 'solo.txt', content: 'ben only\n' })),
    reply(toolUse('write_file', { path: 'shared.txt', content: 'ben 2\n' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'ben', role: 'dev', prompt: 'Edit.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ben'))?.status === 'idle' && h.api.requests('ben').length === 3, 10_000, 'ben idle');
  await new Promise((r) => setTimeout(r, 1500)); // past a batch (OVERLAP_BATCH_MS)
  assert.deepEqual(await overlapNotes(h, 'ann'), [], 'split work: ann is not told');
  assert.deepEqual(await overlapNotes(h, 'ben'), [], 'nor ben');
  assert.equal(h.api.requests('ann').length, 2, 'ann is not woken');

  // What the Changes view marks: shared.txt for both, solo.txt for nobody.
  const log = new ChangeLog(h.root);
  let marks = overlapsOf((await log.list()).changes, await mergeMarks(h.root));
  assert.deepEqual([...(marks.get('ann\0shared.txt') ?? [])], ['ben']);
  assert.deepEqual([...(marks.get('ben\0shared.txt') ?? [])], ['ann']);
  assert.equal(marks.get('ben\0solo.txt'), undefined);

  // ann's branch is merged into main; the lead then changes shared.txt in main: it clashes with
  // ben's unmerged change (both told: the main checkout is no branch the queue reconciles), not with ann's merged one.
  await h.rt.worktrees.merge('ann', { commitMessage: 'ann' });
  h.api.script('lead', reply(toolUse('write_file', { path: 'shared.txt', content: 'lead\n' })), 'ok');
  await h.rt.askLead('Edit shared.txt.');
  await waitFor(async () => (await overlapNotes(h, 'lead')).length === 1, 10_000, 'lead warned');
  assert.match((await overlapNotes(h, 'lead'))[0]!, /ben also changed shared\.txt/);
  marks = overlapsOf((await log.list()).changes, await mergeMarks(h.root));
  assert.deepEqual([...(marks.get('lead\0shared.txt') ?? [])], ['ben']);
  await waitFor(async () => (await overlapNotes(h, 'ben')).length === 1, 10_000, 'ben warned');
  assert.match((await overlapNotes(h, 'ben'))[0]!, /^\[overlap\] lead also changed shared\.txt \(in the main checkout\)/);
  assert.equal((await overlapNotes(h, 'ann')).length, 0, 'ann, merged, is not told');
});

test('one note per pair of agents per batch, listing the files, from the team; none for a file the lead gave to one task', async (t) => {
  const h = await harness(t);
  h.api.script('ann', reply(toolUse('write_file', { path: 'a.txt', content: 'ann\n' }), toolUse('write_file', { path: 'b.txt', content: 'ann\n' }),
    toolUse('write_file', { path: 'owned.txt', content: 'ann\n' })), reply(toolUse('idle', {})));
  await partsOf(h.rt).team.tasks.create({ subject: 'the owned file', files: ['owned.txt'] });
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Edit.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle', 10_000, 'ann idle');
  h.api.script('ben', reply(toolUse('write_file', { path: 'a.txt', content: 'ben\n' }), toolUse('write_file', { path: 'b.txt', content: 'ben\n' }),
    toolUse('write_file', { path: 'owned.txt', content: 'ben\n' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ben', role: 'dev', prompt: 'Edit.' });
  await waitFor(async () => (await overlapNotes(h, 'ann')).length >= 1 && (await overlapNotes(h, 'ben')).length >= 1, 10_000, 'both told');
  await new Promise((r) => setTimeout(r, 1500));
  const toAnn = (await partsOf(h.rt).team.mailbox.history('ann')).filter((m) => m.content.startsWith('[overlap]'));
  assert.equal(toAnn.length, 1, 'one note for the pair');
  assert.equal(toAnn[0]!.from, 'team', 'from the team, not from ann herself');
  assert.match(toAnn[0]!.content, /^\[overlap\] ben also changed a\.txt, b\.txt \(in the main checkout\), and neither change/);
  assert.doesNotMatch(toAnn[0]!.content, /owned\.txt/);
  assert.deepEqual(await overlapNotes(h, 'ben'), ['[overlap] ann also changed a.txt, b.txt (in the main checkout), and neither change has been merged into the other\'s branch: agree with ann (or the lead) who changes them, before the two collide at merge time.']);
  // The model reads it as from the team.
  await waitFor(() => /team-mail from=\\"team\\" type=\\"message\\"[^>]*>\\n\[overlap\] ben also changed/.test(JSON.stringify(h.api.requests('ann').map((r) => r.body.messages))), 10_000, 'ann reads it from the team');
});

test('two worktree changes both merged into the workspace branch no longer clash', () => {
  const rec = (agent: string, ts: number) => ({ id: `chg_${agent}`, agent, ts, task: null, tool: 'write_file' as const, root: `.worktrees/${agent}`, path: 'x.txt', before: null, after: null });
  const marks = new Map([['ann', 10], ['ben', 20]]);
  assert.equal(clash(rec('ann', 5), rec('ben', 6), marks), false);
  assert.equal(clash(rec('ann', 5), rec('ben', 25), marks), true, "ben's later change is not merged");
});
