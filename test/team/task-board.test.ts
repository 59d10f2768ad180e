import assert from 'node:assert/strict';
import { readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { tempDir } from '../helpers/tmp';

async function newTeam(t: Parameters<typeof tempDir>[0]): Promise<Team> {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  return team;
}

test('ids are sequential and listings sort numerically (task_10 after task_2)', async (t) => {
  const team = await newTeam(t);
  for (let i = 1; i <= 12; i++) await team.tasks.create({ subject: `t${i}` });
  assert.deepEqual((await team.tasks.list()).map((x) => x.id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const t10 = await team.tasks.get(10);
  assert.equal(t10?.subject, 't10');
  assert.equal(t10?.owner, '');
  assert.deepEqual(t10?.blockedBy, []);
});

test('claim: only pending, unowned, unblocked; one owner', async (t) => {
  const team = await newTeam(t);
  const a = await team.tasks.create({ subject: 'a' });
  const b = await team.tasks.create({ subject: 'b', blockedBy: [a.id] });
  assert.match((await team.tasks.claim(b.id, 'bob') as { reason: string }).reason, /blocked by 1/);
  assert.ok((await team.tasks.claim(a.id, 'alice')).ok);
  assert.match((await team.tasks.claim(a.id, 'bob') as { reason: string }).reason, /owned by alice/);
  assert.match((await team.tasks.claim(99, 'bob') as { reason: string }).reason, /not found/);
  await team.tasks.update(a.id, { status: 'completed' });
  assert.deepEqual((await team.tasks.get(b.id))?.blockedBy, [], 'completing unblocks dependents');
  const done = await team.tasks.create({ subject: 'c' });
  await team.tasks.update(done.id, { status: 'completed' });
  assert.match((await team.tasks.claim(done.id, 'bob') as { reason: string }).reason, /is completed/);
  assert.ok((await team.tasks.claim(b.id, 'bob')).ok);
});

test('create and update validate blockers', async (t) => {
  const team = await newTeam(t);
  await assert.rejects(team.tasks.create({ subject: '  ' }), /needs a subject/);
  await assert.rejects(team.tasks.create({ subject: 'x', blockedBy: [7] }), /task 7 not found/);
  const a = await team.tasks.create({ subject: 'a' });
  await assert.rejects(team.tasks.update(a.id, { addBlockedBy: [a.id] }), /cannot block itself/);
  const b = await team.tasks.create({ subject: 'b' });
  const u = await team.tasks.update(b.id, { addBlockedBy: [a.id, a.id] });
  assert.deepEqual(u.blockedBy, [a.id]);
  assert.deepEqual((await team.tasks.update(b.id, { removeBlockedBy: [a.id] })).blockedBy, []);
  await team.tasks.update(a.id, { status: 'completed' });
  assert.deepEqual((await team.tasks.create({ subject: 'c', blockedBy: [a.id] })).blockedBy, [], 'completed blockers do not block');
});

test('next work: own in-progress task first, then lowest claimable; release on shutdown', async (t) => {
  const team = await newTeam(t);
  for (const s of ['one', 'two', 'three']) await team.tasks.create({ subject: s });
  await team.tasks.claim(3, 'alice');
  assert.equal((await team.tasks.nextWorkFor('alice'))?.id, 3);
  assert.equal((await team.tasks.nextWorkFor('bob'))?.id, 1);
  assert.equal((await team.tasks.nextWorkFor('carol'))?.id, 2);
  assert.equal(await team.tasks.nextWorkFor('dave'), null);
  const released = await team.tasks.releaseOwnedBy('alice');
  assert.deepEqual(released.map((x) => x.id), [3]);
  const t3 = await team.tasks.get(3);
  assert.equal(t3?.status, 'pending');
  assert.equal(t3?.owner, '');
  assert.equal((await team.tasks.nextWorkFor('dave'))?.id, 3);
});

test('a corrupt task file is reported and moved aside; the rest of the board still works', async (t) => {
  const team = await newTeam(t);
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  await team.tasks.create({ subject: 'good' });
  await writeFile(team.paths.task(2), '{"id": 2, "subj');
  await writeFile(team.paths.task(3), JSON.stringify({ id: 3, subject: 's', status: 'bogus' }));
  assert.deepEqual((await team.tasks.list()).map((x) => x.id), [1]);
  const files = await readdir(team.paths.tasksDir);
  assert.equal(files.filter((f) => /^task_[23]\.json\.corrupt-/.test(f)).length, 2);
  assert.ok(problems.some((p) => p.path === team.paths.task(2)));
  assert.ok(problems.some((p) => p.path === team.paths.task(3) && /status/.test(p.message)));
  // The moved-aside files keep their ids taken.
  assert.equal((await team.tasks.create({ subject: 'next' })).id, 4);
});

test('a task file added or removed by hand shows in the next listing (no waiting for the cache)', async (t) => {
  const team = await newTeam(t);
  await team.tasks.create({ subject: 'one' });
  await team.tasks.create({ subject: 'two' });
  assert.deepEqual((await team.tasks.list()).map((x) => x.id), [1, 2]);
  await writeFile(team.paths.task(7), JSON.stringify({ id: 7, subject: 'by hand', description: '', status: 'pending', owner: '', blockedBy: [] }));
  assert.deepEqual((await team.tasks.list()).map((x) => x.id), [1, 2, 7]);
  await unlink(team.paths.task(1));
  assert.deepEqual((await team.tasks.list()).map((x) => x.id), [2, 7]);
  await team.tasks.create({ subject: 'three' });
  assert.deepEqual((await team.tasks.list()).map((x) => x.subject), ['two', 'by hand', 'three']);
});

test('a task file moved aside as corrupt keeps its id taken: the next task gets a new one', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.tasks.create({ subject: 'build' });
  const deploy = await team.tasks.create({ subject: 'deploy', blockedBy: [1] });
  await writeFile(join(root, '.tasks', `task_${deploy.id}.json`), '{"id": 2, "subj');
  assert.equal((await team.tasks.list()).length, 1, 'the corrupt file is moved aside');
  const next = await team.tasks.create({ subject: 'announce' });
  assert.equal(next.id, 3);
});
