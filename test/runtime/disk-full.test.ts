// A full disk (ENOSPC, injected through the IO seam in src/core/util/io-faults.ts): agents
// pause with one clear notice, nobody is retired, no mail is acknowledged without being
// delivered, and they go on by themselves once writes succeed again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { setIoFaults } from '../../src/core/util/io-faults';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

test('on a full disk a teammate pauses with one notice and no mail lost, then goes on by itself', async (t) => {
  t.after(() => setIoFaults(null));
  const h = await harness(t);
  h.api.script('amy', reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  h.api.script('bob', reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Wait.' });
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.list()).every((m) => m.status === 'idle'), 8000, 'both idle');
  const cursorBefore = await partsOf(h.rt).team.mailbox.cursor('amy');
  // The disk fills up: every write in the workspace fails, but mail already on its way lands.
  let full = true;
  setIoFaults((op, path) => (full && op === 'write' && path.startsWith(h.root) && !path.startsWith(partsOf(h.rt).team.paths.inboxDir) ? 'ENOSPC' : null));
  await userSends(h.rt, 'amy', 'DISK-MARKER for amy');
  await userSends(h.rt, 'bob', 'DISK-MARKER for bob');
  await waitFor(() => h.events.some((e) => e.type === 'notice' && /^disk full: ENOSPC/.test(e.message)), 8000, 'the disk-full notice');
  await sleep(2500);
  const notices = h.events.filter((e) => e.type === 'notice' && /disk full/.test(e.message));
  assert.equal(notices.length, 1, 'one notice for the team, not one per agent');
  assert.equal(h.events.some((e) => e.type === 'notice' && /crashed/.test(e.message)), false, 'nobody crashed');
  assert.equal(await partsOf(h.rt).team.mailbox.cursor('amy'), cursorBefore, 'no mail acknowledged');
  assert.equal(h.api.requests('amy').length, 1, 'no model call while paused');
  assert.equal(h.rt.activity('amy').kind, 'paused');
  full = false;
  for (const name of ['amy', 'bob']) {
    await waitFor(() => h.api.requests(name).length === 2, 10_000, `${name} goes on`);
    assert.match(JSON.stringify(h.api.requests(name)[1]!.body.messages), new RegExp(`DISK-MARKER for ${name}`));
  }
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.cursor('amy')) > cursorBefore, 5000, 'the mail acked once delivered');
  assert.ok((await partsOf(h.rt).team.roster.list()).every((m) => m.status !== 'shutdown'), 'nobody retired');
  assert.ok(h.events.some((e) => e.type === 'notice' && /room again/.test(e.message)));
});

test('a full disk reported only after the roster lock was written (at close, as NFS or a quota does) leaves no lock behind: the teammate goes on at once', async (t) => {
  t.after(() => setIoFaults(null));
  const h = await harness(t);
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('amy'))?.status === 'idle', 8000, 'amy idle');
  // The first write of the lock (its creation) goes through; the second — its content's — is refused.
  let calls = 0;
  setIoFaults((op, path) => (op === 'write' && path.endsWith('config.json.lock') && ++calls === 2 ? 'ENOSPC' : null));
  await assert.rejects(partsOf(h.rt).team.roster.patch('amy', { role: 'developer' }), /ENOSPC/);
  setIoFaults(null);
  const before = h.api.requests('amy').length;
  await partsOf(h.rt).team.tasks.create({ subject: 'after the disk' });
  // Handing the task over writes the roster (current_task): a lock left behind held it up for its 30 s timeout.
  await waitFor(() => h.api.requests('amy').length > before, 5000, 'amy handed the task');
  assert.match(JSON.stringify(h.api.requests('amy').at(-1)!.body.messages), /after the disk/);
});
