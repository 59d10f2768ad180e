// What a script can trust: `tasks` and `inbox` exit 1 when a file could not be read (the
// listing is incomplete, still printed, the file named), and a host killed with -9 mid-write
// leaves temp files the next host removes. Real processes throughout.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { tempDir, waitFor } from '../helpers/tmp';
import { runCli } from './cli-proc';

test('agent-teams tasks and inbox exit 1 when a file cannot be read: the rest is printed and the file named', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.tasks.create({ subject: 'readable' });
  await team.tasks.create({ subject: 'lost' });
  await team.mailbox.send({ from: 'lead', to: 'user', type: 'message', content: 'hello' });
  const ok = await runCli(['--root', root, 'tasks']);
  assert.equal(ok.code, 0, ok.stderr);
  // A file that cannot be read (as root, a folder in its place is what refuses a read).
  await rm(team.paths.task(2));
  await mkdir(team.paths.task(2));
  const tasks = await runCli(['--root', root, 'tasks']);
  assert.equal(tasks.code, 1, 'an incomplete board is not a complete one');
  assert.match(tasks.stdout, /readable/);
  assert.match(tasks.stderr, /task_2\.json/);
  await rm(team.paths.inbox('user'));
  await mkdir(team.paths.inbox('user'));
  const inbox = await runCli(['--root', root, 'inbox']);
  assert.equal(inbox.code, 1);
  assert.match(inbox.stderr, /user\.jsonl/);
});

test('a host killed with -9 mid-write leaves .team/config.json.tmp-* behind; the next host removes it', async (t) => {
  const root = await tempDir(t);
  await (await new Team(root).init()).dispose();
  const teamDir = join(root, '.team');
  const temps = async () => (await readdir(teamDir)).filter((n) => n.startsWith('config.json.tmp-'));
  for (let i = 0; i < 10 && (await temps()).length === 0; i++) {
    const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'roster-writer.js'), root], { stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((r) => child.on('exit', r));
    try {
      // Killed while its temp file is there (it writes one nearly all the time).
      await waitFor(async () => (await temps()).length > 0, 30_000, 'the writer writing');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }
  assert.ok((await temps()).length > 0, 'a temp file was left by the killed writer');
  const next = await new Team(root).init();
  t.after(() => next.dispose());
  assert.deepEqual(await temps(), [], 'removed by the next host at once');
});
