// Task ownership and blocker rules (docs/file-formats.md, "Tasks"): a teammate changes only
// its own tasks, an owner set by update follows the claim rules and must be a member, a
// completed blocker blocks nothing, and cycles are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { tempDir } from '../helpers/tmp';

async function newTeam(t: Parameters<typeof tempDir>[0]): Promise<Team> {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  await team.spawnMember('alice', 'coder');
  await team.spawnMember('bob', 'tester');
  return team;
}

test('a teammate completes, releases or edits only tasks it owns; the lead and the user change any', async (t) => {
  const team = await newTeam(t);
  const a = await team.tasks.create({ subject: 'a' });
  assert.ok((await team.tasks.claim(a.id, 'alice')).ok);
  await assert.rejects(team.tasks.update(a.id, { status: 'completed' }, 'bob'), /owned by alice: only its owner/);
  await assert.rejects(team.tasks.update(a.id, { status: 'pending' }, 'bob'), /owned by alice/);
  await assert.rejects(team.tasks.update(a.id, { owner: 'bob' }, 'bob'), /owned by alice/);
  const free = await team.tasks.create({ subject: 'free' });
  await assert.rejects(team.tasks.update(free.id, { status: 'completed' }, 'bob'), /not yours: claim it first/);
  await assert.rejects(team.tasks.update(free.id, { owner: 'alice' }, 'bob'), /only for itself/);
  // Its own: fine. Releasing puts it back on the board.
  const released = await team.tasks.update(a.id, { status: 'pending' }, 'alice');
  assert.deepEqual([released.status, released.owner], ['pending', '']);
  // Claiming by update follows the claim rules, for itself.
  const mine = await team.tasks.update(free.id, { status: 'in_progress' }, 'bob');
  assert.deepEqual([mine.status, mine.owner], ['in_progress', 'bob']);
  assert.equal((await team.tasks.update(free.id, { status: 'completed' }, 'bob')).status, 'completed');
  // The lead and the user may change any task.
  assert.ok((await team.tasks.claim(a.id, 'alice')).ok);
  assert.equal((await team.tasks.update(a.id, { status: 'completed' }, 'lead')).status, 'completed');
});

test('setting an owner follows the claim rules (pending, unblocked, unowned) and needs a member', async (t) => {
  const team = await newTeam(t);
  const a = await team.tasks.create({ subject: 'a' });
  const b = await team.tasks.create({ subject: 'b', blockedBy: [a.id] });
  await assert.rejects(team.tasks.update(b.id, { owner: 'bob', status: 'in_progress' }, 'bob'), /cannot give task 2 to bob: task 2 is blocked by 1/);
  await assert.rejects(team.tasks.update(a.id, { owner: 'Bob' }, 'lead'), /"Bob" is not a teammate yet: spawn_teammate Bob first/);
  assert.equal((await team.tasks.get(a.id))?.owner, '', 'a refused owner leaves the task claimable');
  const given = await team.tasks.update(a.id, { owner: 'alice' }, 'lead');
  assert.deepEqual([given.owner, given.status], ['alice', 'in_progress'], 'an owner set by update has claimed it');
  await assert.rejects(team.tasks.update(a.id, { owner: 'bob' }, 'lead'), /owned by alice/);
  await team.roster.setStatus('bob', 'shutdown');
  const c = await team.tasks.create({ subject: 'c' });
  await assert.rejects(team.tasks.update(c.id, { owner: 'bob' }, 'user'), /owner "bob" has shut down: spawn_teammate bob starts it again/);
  // The user may change any task: an owner it picks reserves the task as it stands.
  const reserved = await team.tasks.update(b.id, { owner: 'alice' }, 'user');
  assert.deepEqual([reserved.owner, reserved.status, reserved.blockedBy], ['alice', 'pending', [a.id]]);
});

test('adding a completed task as a blocker is a no-op; a blocker that closes a cycle is refused', async (t) => {
  const team = await newTeam(t);
  const a = await team.tasks.create({ subject: 'a' });
  const b = await team.tasks.create({ subject: 'b', blockedBy: [a.id] });
  const c = await team.tasks.create({ subject: 'c', blockedBy: [b.id] });
  await assert.rejects(team.tasks.update(a.id, { addBlockedBy: [b.id] }), /#2 would make a cycle \(#1 ← #2 ← #1\)/);
  await assert.rejects(team.tasks.update(a.id, { addBlockedBy: [c.id] }), /#1 ← #3 ← #2 ← #1/);
  assert.deepEqual((await team.tasks.get(a.id))?.blockedBy, []);
  const done = await team.tasks.create({ subject: 'done' });
  await team.tasks.update(done.id, { status: 'completed' });
  assert.deepEqual((await team.tasks.update(a.id, { addBlockedBy: [done.id] })).blockedBy, [], 'a completed blocker blocks nothing');
  assert.ok((await team.tasks.claim(a.id, 'alice')).ok);
});
