// Contract leftovers (docs/file-formats.md, "Tasks" and "Messages"): mail before tasks,
// owners named before they are spawned, reserved tasks that unblock, and a lead that hears
// the team finish. Each scenario runs through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';

const exec = promisify(execFile);
const sent = (h: Harness, agent: string, i: number) => JSON.stringify(h.api.requests(agent)[i]?.body.messages.at(-1) ?? '');
const idle = (h: Harness, name: string) =>
  waitFor(async () => (await h.rt.team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);

test('mail and an auto-assigned task never arrive in one wake: the task is handed over alone, the mail read on its own', async (t) => {
  const h = await harness(t);
  // A worktree-bound task takes a moment to hand over (git worktree add): mail sent meanwhile used to ride along.
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: h.root });
  await writeFile(join(h.root, 'f.txt'), 'x\n');
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base', '--allow-empty'], { cwd: h.root });
  h.api.script('amy', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Wait for work.' });
  await idle(h, 'amy');
  h.api.setDefault(reply(toolUse('idle', {})));
  h.api.script('lead',
    reply(toolUse('task_create', { subject: 'refactor', worktree: 'wt1' }), toolUse('send_message', { to: 'amy', content: 'leave task 1 to bob' })),
    'ok');
  await h.rt.askLead('Plan.');
  await waitFor(() => h.api.requests('amy').length >= 3, 8000, 'amy handed both');
  const wakes = h.api.requests('amy').slice(1).map((r) => JSON.stringify(r.body.messages.at(-1)));
  for (const w of wakes) {
    assert.ok(!(/Task #1 was assigned/.test(w) && /leave task 1 to bob/.test(w)), `task and mail in one wake: ${w}`);
  }
});
