// Changes cut short (docs/file-formats.md, "Tasks"): a host killed with -9, or a write that
// failed on a full disk, between a task's completion and the unblocking of the tasks that
// waited for it left those tasks blocked by a completed task — never claimable, never done.
// A teammate looking for work now drops blockers that are already completed. Real child
// process, real SIGKILL; the teammate runs through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { setIoFaults } from '../../src/core/util/io-faults';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const completeAndDie = (root: string, id: number) => new Promise<NodeJS.Signals | null>((resolve) => {
  const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'task-completer.js'), root, String(id)], { stdio: 'ignore' });
  child.on('exit', (_code, signal) => resolve(signal));
});

const doTasks = (r: { body: { messages: unknown[] } }) => {
  const m = /Task #(\d+)/.exec(JSON.stringify(r.body.messages.at(-1)));
  return m ? reply(toolUse('task_update', { task_id: Number(m[1]), status: 'completed' })) : reply(toolUse('idle', {}));
};

test('kill -9 between a completion and the unblocking: the waiting task is still taken and done', async (t) => {
  const h = await harness(t);
  const first = await partsOf(h.rt).team.tasks.create({ subject: 'build' });
  const second = await partsOf(h.rt).team.tasks.create({ subject: 'deploy', blockedBy: [first.id] });
  assert.equal(await completeAndDie(h.root, first.id), 'SIGKILL');
  assert.equal((await partsOf(h.rt).team.tasks.get(first.id))?.status, 'completed');
  assert.deepEqual((await partsOf(h.rt).team.tasks.get(second.id))?.blockedBy, [first.id], 'the kill left it blocked by a completed task');
  // The host starts again (as after the kill of the host itself).
  await h.rt.dispose();
  await h.restart();
  h.api.setDefault(doTasks);
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Take work from the board.' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(second.id))?.status === 'completed', 10_000, 'deploy taken and done');
  assert.deepEqual((await partsOf(h.rt).team.tasks.get(second.id))?.blockedBy, []);
});

test('a full disk between a completion and the unblocking: once there is room, the waiting task is taken and done', async (t) => {
  t.after(() => setIoFaults(null));
  const h = await harness(t);
  const first = await partsOf(h.rt).team.tasks.create({ subject: 'build' });
  const second = await partsOf(h.rt).team.tasks.create({ subject: 'deploy', blockedBy: [first.id] });
  setIoFaults((op, path) => (op === 'write' && path.endsWith(`task_${second.id}.json`) ? 'ENOSPC' : null));
  await assert.rejects(partsOf(h.rt).team.tasks.update(first.id, { status: 'completed' }), /ENOSPC/);
  setIoFaults(null);
  assert.equal((await partsOf(h.rt).team.tasks.get(first.id))?.status, 'completed');
  h.api.setDefault(doTasks);
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Take work from the board.' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(second.id))?.status === 'completed', 10_000, 'deploy taken and done');
});
