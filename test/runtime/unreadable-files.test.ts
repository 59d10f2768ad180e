// Files we may not read (mode 000, as a user or another tool can leave them): the file is
// reported and the team carries on; nobody crashes or is retired. Reads fail through the
// IO seam (src/core/util/io-faults.ts), since tests may run as root, whom mode 000 does not stop;
// the files are made mode 000 as well, which is what a non-root run meets.
import assert from 'node:assert/strict';
import { chmod } from 'node:fs/promises';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { setIoFaults } from '../../src/core/util/io-faults';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

function problems(t: { after: (fn: () => void) => void }): Problem[] {
  const seen: Problem[] = [];
  const sub = onProblem((p) => seen.push(p));
  t.after(() => {
    sub.dispose();
    setIoFaults(null);
  });
  return seen;
}

test('a task file nobody may read is reported; the teammate goes on with the other tasks', async (t) => {
  const seen = problems(t);
  const h = await harness(t);
  const [a, b, c] = [await h.rt.createTask({ subject: 'one' }), await h.rt.createTask({ subject: 'two' }), await h.rt.createTask({ subject: 'three' })];
  const bad = partsOf(h.rt).team.paths.task(b.id);
  await chmod(bad, 0);
  setIoFaults((op, path) => (op === 'read' && path === bad ? 'EACCES' : null));
  let turn = 0;
  h.api.setDefault((r) => {
    const text = JSON.stringify(r.body.messages);
    const m = [...text.matchAll(/Task #(\d+) was assigned to you automatically/g)].at(-1);
    turn++;
    return m ? reply(toolUse('task_update', { task_id: Number(m[1]), status: 'completed' }), toolUse('idle', {})) : reply(toolUse('idle', {}));
  });
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Work the board.' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(c.id))?.status === 'completed', 10_000, 'task three completed');
  assert.equal((await partsOf(h.rt).team.tasks.get(a.id))?.status, 'completed');
  assert.notEqual((await partsOf(h.rt).team.roster.get('amy'))?.status, 'shutdown', 'amy is not retired');
  assert.ok(seen.some((p) => p.path === bad && /cannot be read \(EACCES\)/.test(p.message)), JSON.stringify(seen));
  assert.equal(h.events.some((e) => e.type === 'notice' && /crashed/.test(e.message)), false);
  assert.ok(turn > 0);
});

test('an inbox nobody may read is reported; its teammate waits, and gets the mail once it can be read', async (t) => {
  const seen = problems(t);
  const h = await harness(t);
  h.api.script('bob', reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Wait for mail.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('bob'))?.status === 'idle', 5000, 'bob idle');
  const inbox = partsOf(h.rt).team.paths.inbox('bob');
  let locked = true;
  setIoFaults((op, path) => (locked && op === 'read' && path === inbox ? 'EACCES' : null));
  await userSends(h.rt, 'bob', 'UNREAD-MARKER');
  await waitFor(() => seen.some((p) => p.path === inbox && /cannot be read/.test(p.message)), 5000, 'the inbox reported');
  await sleep(300);
  assert.equal((await partsOf(h.rt).team.roster.get('bob'))?.status, 'idle', 'bob is not retired');
  assert.equal(h.api.requests('bob').length, 1);
  locked = false;
  await userSends(h.rt, 'bob', 'and another');
  await waitFor(() => h.api.requests('bob').length === 2, 5000, 'the mail delivered once readable');
  assert.match(JSON.stringify(h.api.requests('bob')[1]!.body.messages), /UNREAD-MARKER[^]*and another/);
});
