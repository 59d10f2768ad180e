// The task board's incremental view (src/core/team/task-view.ts, issue 12 item 8): a process
// keeps its view of a large board by reading only the files that changed — and still sees
// every change: made by another process, by hand (added, deleted, edited in place), corrupt.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { TaskBoard } from '../../src/core/team/task-board';
import { Team } from '../../src/core/team/team';
import { setIoFaults } from '../../src/core/util/io-faults';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { sleep, tempDir, waitFor } from '../helpers/tmp';

const TASKS = 300;

/** Counts the task files read (through the read seam every JSON read passes). */
function countReads(t: { after(fn: () => void): void }): { n: number } {
  const c = { n: 0 };
  setIoFaults((op, path) => {
    if (op === 'read' && /task_\d+\.json$/.test(path)) c.n++;
    return null;
  });
  t.after(() => setIoFaults(null));
  return c;
}

async function bigBoard(t: Parameters<typeof tempDir>[0]): Promise<{ root: string; team: Team }> {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(async () => team.dispose());
  await team.tasks.createMany(Array.from({ length: TASKS }, (_, i) => ({ subject: `task ${i + 1}` })));
  // Files written within one clock tick of a read are read again to be safe: let them settle.
  await sleep(100);
  return { root, team };
}

test('another process\'s change and a task deleted by hand are seen at once, reading only those files', async (t) => {
  const { root, team } = await bigBoard(t);
  assert.equal((await team.tasks.list()).length, TASKS);
  const reads = countReads(t);
  // Another process completes task 7 through the board (the generation record names it).
  const teamJs = join(__dirname, '..', '..', 'src', 'core', 'team', 'team.js');
  const script = `const { Team } = require(${JSON.stringify(teamJs)}); const team = new Team(${JSON.stringify(root)});
    team.tasks.update(7, { status: 'completed' }).then(() => team.dispose(), (e) => { console.error(e); process.exit(1); });`;
  await promisify(execFile)(process.execPath, ['-e', script]);
  await unlink(team.paths.task(9));
  const board = await team.tasks.list();
  assert.equal(board.find((x) => x.id === 7)?.status, 'completed');
  assert.equal(board.some((x) => x.id === 9), false, 'the deleted task is gone');
  assert.equal(board.length, TASKS - 1);
  assert.ok(reads.n <= 3, `only what changed is read again (${reads.n} task files read)`);
  reads.n = 0;
  assert.equal((await team.tasks.list()).length, TASKS - 1);
  assert.equal(reads.n, 0, 'nothing changed: nothing read');
});

test('edits by hand without a generation bump are found by the background check; a corrupt one is still reported', async (t) => {
  const { team } = await bigBoard(t);
  const board = new TaskBoard(team.paths, undefined, 200);
  assert.equal((await board.list()).length, TASKS);
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  // Same size, same id, edited in place; and another file made corrupt in place.
  const t5 = (await board.list()).find((x) => x.id === 5)!;
  await writeFile(team.paths.task(5), JSON.stringify({ ...t5, subject: 'TASK 5' }));
  await writeFile(team.paths.task(6), '{"id": 6, "subj');
  const reads = countReads(t);
  await sleep(300);
  // The first read after the trust window starts the check; a later one applies what it found.
  await waitFor(async () => (await board.list()).find((x) => x.id === 5)?.subject === 'TASK 5', 10_000, 'the edit seen');
  assert.equal((await board.list()).some((x) => x.id === 6), false, 'the corrupt task is left out');
  assert.ok(problems.some((p) => p.path === team.paths.task(6)), 'and reported');
  assert.ok(reads.n < 20, `the check reads only the edited files (${reads.n} task files read)`);
});
