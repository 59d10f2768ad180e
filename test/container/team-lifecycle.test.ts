// A container teammate's lifecycle through the real runtime (docs/containers.md, "How it
// works"): the host going away leaves its container running and the next host reattaches the
// same one by its labels, clone and all (never a second); stopping the teammate stops its
// container after bringing its work back; an engine lost mid-command is a clear error on that
// teammate alone, the worktree teammate beside it finishes, and the next command after the
// engine is back reattaches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { partsOf, userSends } from '../helpers/session-parts';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { engineForFile } from './engine-fixture';
import { containersOf, containerTeam, gitIn } from './helpers';

const testEngine = engineForFile();

const lastResult = (h: { api: { requests(a: string): Array<{ body: { messages: unknown[] } }> } }, agent: string, n: number) => JSON.stringify(h.api.requests(agent)[n]?.body.messages.at(-1));

test('a restarted host reattaches the same container with its clone; a stop brings the work back and stops it', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const h = await containerTeam(t, engine);
  h.api.script('ann',
    reply(toolUse('bash', { command: 'echo draft > draft.txt && git add draft.txt && git commit -q -m draft && echo uncommitted > wip.txt' })),
    reply(toolUse('idle', {})),
    reply(toolUse('bash', { command: 'cat draft.txt wip.txt; hostname' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Draft.', isolation: 'container' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle' && h.api.requests('ann').length >= 2, 60_000, 'ann idle');
  const [first] = await containersOf(engine, h, 'ann');
  assert.ok(first);
  assert.equal(await gitIn(h.root, 'show', 'team/ann:draft.txt'), 'draft', 'the commit came back when its turn ended');

  // The host goes away (a reload): the container goes on; the next host finds it by its labels.
  await h.rt.dispose();
  assert.equal((await containersOf(engine, h, 'ann'))[0]?.State, 'running');
  await h.restart();
  await userSends(h.rt, 'ann', 'Where is your draft?');
  await waitFor(async () => h.api.requests('ann').length >= 4, 60_000, 'ann answered after the restart');
  const after = lastResult(h, 'ann', 3);
  assert.match(after, /draft\\nuncommitted\\n/, 'its clone, uncommitted work included, was kept');
  assert.match(after, new RegExp(first.Id.slice(0, 12)), 'in the same container');
  const all = await containersOf(engine, h, 'ann');
  assert.deepEqual(all.map((c) => c.Id), [first.Id], 'never a second container');

  // Stopped: its work comes back first, then its container stops (kept for a restart).
  await h.rt.stopTeammate('ann');
  assert.equal((await containersOf(engine, h, 'ann'))[0]?.State, 'exited');
  assert.equal((await partsOf(h.rt).team.roster.get('ann'))?.status, 'shutdown');
});

test('the engine lost mid-command is a clear error on that teammate; the worktree teammate finishes; the next command reattaches', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  if (!engine.down || !engine.up) return t.skip('the engine cannot be stopped by this test');
  const h = await containerTeam(t, engine);
  t.after(() => engine.up!());
  h.api.script('ann',
    reply(toolUse('bash', { command: 'echo started; sleep 5; echo finished' })),
    reply(toolUse('idle', {})),
    reply(toolUse('bash', { command: 'echo back-again' })),
    reply(toolUse('idle', {})),
  );
  h.api.script('cal',
    reply(toolUse('write_file', { path: 'cal.txt', content: 'cal\n' })),
    reply(toolUse('bash', { command: 'git add cal.txt && git -c user.name=cal -c user.email=cal@x commit -q -m cal' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Run it.', isolation: 'container' });
  await waitFor(async () => h.api.requests('ann').length >= 1, 60_000, 'ann started');
  await new Promise((r) => setTimeout(r, 1500));
  await engine.down();
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: 'Write cal.txt.', isolation: 'worktree' });
  await waitFor(async () => h.api.requests('ann').length >= 2, 30_000, 'ann got its answer');
  assert.match(lastResult(h, 'ann', 1), /container of ann is not reachable|connection to the container of ann/);
  await waitFor(async () => (await gitIn(h.root, 'show', 'wt/cal:cal.txt').catch(() => '')) === 'cal', 30_000, 'cal finished');

  await engine.up();
  await userSends(h.rt, 'ann', 'Try again.');
  await waitFor(async () => h.api.requests('ann').length >= 4, 60_000, 'ann ran again');
  assert.match(lastResult(h, 'ann', 3), /back-again/);
});
