// Container teammates through the real runtime and SDK against the scripted fake Messages API
// and a real engine (docs/containers.md): spawned with isolation "container" (by the lead's
// tool and by an agent definition), their bash, background jobs and file tools act on their
// clone in the container, never on the user's checkout; their commits come back onto
// team/<name> when the turn ends and before queue_merge, which lands them; shutdown stops the
// container and a restart of the host reattaches the same one.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { partsOf } from '../helpers/session-parts';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import type { Harness } from '../runtime/harness';
import { engineForFile } from './engine-fixture';
import { containersOf, containerTeam, gitIn } from './helpers';

const testEngine = engineForFile();

const resultOf = (h: Harness, agent: string, n: number) => JSON.stringify(h.api.requests(agent)[n]?.body.messages.at(-1));

test('a container teammate works in its clone: bash, files and search there, commits back on team/<name>, queued and landed', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const h = await containerTeam(t, engine);
  const commit = 'git add -A && git commit -q -m';
  h.api.script('ann',
    reply(toolUse('bash', { command: 'pwd; test -e /workspace/.git && echo has-clone; cat README.md' })),
    reply(toolUse('write_file', { path: 'src/app.txt', content: 'one\ntwo\n' })),
    reply(toolUse('edit_file', { path: 'src/app.txt', old_text: 'two', new_text: 'TWO' })),
    reply(toolUse('read_file', { path: 'src/app.txt' })),
    reply(toolUse('grep', { pattern: 'TW.' }), toolUse('glob', { pattern: '**/*.txt' }), toolUse('list_dir', {})),
    reply(toolUse('bash', { command: 'sleep 0.2; echo from-the-job', run_in_background: true })),
    reply(toolUse('bash', { command: `${commit} "ann: app"` })),
    reply('Done: src/app.txt committed.'),
  );
  const ann = await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Write src/app.txt.', isolation: 'container' }, 'lead');
  assert.equal(ann.branch, 'team/ann');
  assert.equal(ann.container, true);
  await waitFor(async () => (await gitIn(h.root, 'show', 'team/ann:src/app.txt').catch(() => '')) === 'one\nTWO', 60_000, 'commit back on team/ann');
  // Everything happened in the container's clone: the user's checkout is untouched.
  assert.match(resultOf(h, 'ann', 1), /\/workspace\\nhas-clone\\nhello/);
  await assert.rejects(readFile(join(h.root, 'src', 'app.txt')), /ENOENT/);
  assert.match(resultOf(h, 'ann', 4), /one\\nTWO/);
  assert.match(resultOf(h, 'ann', 5), /src\/app.txt:2:TWO/);
  assert.match(resultOf(h, 'ann', 5), /README.md/);
  assert.match(resultOf(h, 'ann', 6), /Started background job/);
  assert.equal(await gitIn(h.root, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  assert.equal((await containersOf(engine, h, 'ann')).length, 1);

  // The lead queues it: it lands on main like a worktree branch.
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle', 30_000, 'ann idle');
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' })), reply('Queued.'));
  await h.rt.askLead('Land ann\'s work.');
  await waitFor(async () => (await readFile(join(h.root, 'src', 'app.txt'), 'utf8').catch(() => '')) === 'one\nTWO\n', 60_000, 'landed on main');
});

test('an agent definition with isolation: container spawns its teammate in a container; a missing image refuses the spawn', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const h = await containerTeam(t, engine);
  await mkdir(join(h.root, '.team', 'agents'), { recursive: true });
  await writeFile(join(h.root, '.team', 'agents', 'boxed.md'), '---\nname: boxed\ndescription: works in a box\nisolation: container\n---\nWork carefully.\n');
  h.api.script('bo', reply(toolUse('bash', { command: 'cat /proc/1/cgroup >/dev/null; hostname' })), reply(toolUse('idle', {})));
  const bo = await h.rt.spawnTeammate({ name: 'bo', role: '', prompt: 'Say where you are.', agent_type: 'boxed' }, 'lead');
  assert.equal(bo.container, true);
  assert.equal(bo.branch, 'team/bo');
  await waitFor(async () => h.api.requests('bo').length >= 2, 60_000, 'bo ran a command');
  const [c] = await containersOf(engine, h, 'bo');
  assert.ok(c, 'its container exists');
  assert.match(resultOf(h, 'bo', 1), new RegExp(c.Id.slice(0, 12)), 'the command ran in that container (its hostname is the container id)');

  // No image set and no .devcontainer: refused before anything is written.
  h.rt.updateSettings({ container: { host: engine.host } });
  await assert.rejects(h.rt.spawnTeammate({ name: 'cy', role: 'dev', prompt: 'x', isolation: 'container' }), /cannot run in a container: no container image/);
  assert.equal(await partsOf(h.rt).team.roster.get('cy'), undefined, 'nothing written for a refused spawn');
});

test('queue_merge brings a container teammate\'s commits back first, while it is still in its turn', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const h = await containerTeam(t, engine);
  h.api.script('ann',
    reply(toolUse('bash', { command: 'echo early > early.txt && git add early.txt && git commit -q -m early' })),
    reply(toolUse('bash', { command: 'sleep 6' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Commit, then keep working.', isolation: 'container' });
  await waitFor(async () => h.api.requests('ann').length >= 2, 60_000, 'ann committed and is still working');
  assert.equal(await gitIn(h.root, 'rev-parse', 'team/ann'), await gitIn(h.root, 'rev-parse', 'main'), 'nothing came back yet: its turn goes on');
  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' })), reply('Queued.'));
  await h.rt.askLead('Land what ann has.');
  assert.match(resultOf(h, 'lead', 1), /Queued team\/ann of ann/);
  await waitFor(async () => (await readFile(join(h.root, 'early.txt'), 'utf8').catch(() => '')) === 'early\n', 60_000, 'early.txt landed');
});
