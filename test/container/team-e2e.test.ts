// The end to end (docs/containers.md), scripted model through the real SDK and a real
// engine: the lead spawns one worktree teammate and two container teammates; each runs its
// commands where it works and commits; the container teammates' commits come back; the lead
// queues all three branches and the merge queue lands them on main; stopping the team stops
// the containers and `containers prune` removes them. Then the same through ssh:// to an sshd
// on 127.0.0.1, as a second machine would be reached (nothing shared but what crosses ssh).
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { partsOf } from '../helpers/session-parts';
import { reply, toolUse } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { engineForFile, startSshEngine, type TestEngine } from './engine-fixture';
import { containersOf, containerTeam } from './helpers';

const testEngine = engineForFile();

async function teamFinishes(t: TestContext, engine: TestEngine, host = engine.host): Promise<void> {
  const h = await containerTeam(t, engine, { container: { host, image: engine.image } });
  const spawn = (name: string, isolation: string) => toolUse('spawn_teammate', { name, role: 'dev', prompt: `Add ${name}.txt and commit it.`, isolation });
  h.api.script('lead', reply(spawn('ann', 'container'), spawn('bo', 'container'), spawn('cal', 'worktree')), reply('The team is on it.'));
  for (const name of ['ann', 'bo', 'cal']) {
    h.api.script(name,
      reply(toolUse('bash', { command: `echo "${name} ran in $(hostname)" > ${name}.txt && cat /proc/1/cgroup > /dev/null` })),
      reply(toolUse('bash', { command: `git add ${name}.txt && git -c user.name=${name} -c user.email=${name}@x commit -q -m "${name}: add ${name}.txt"` })),
      reply(`Added ${name}.txt.`),
    );
  }
  await h.rt.askLead('Three teammates: ann and bo in containers, cal in a worktree; each adds its file.');
  await waitFor(async () => {
    const members = await partsOf(h.rt).team.roster.list();
    return members.length === 3 && members.every((m) => m.status === 'idle') && ['ann', 'bo', 'cal'].every((n) => h.api.requests(n).length >= 3);
  }, 120_000, 'the three idle after their work');
  const ids = { ann: (await containersOf(engine, h, 'ann'))[0]?.Id, bo: (await containersOf(engine, h, 'bo'))[0]?.Id };
  assert.ok(ids.ann && ids.bo && ids.ann !== ids.bo, 'each container teammate has its own container');
  assert.deepEqual(await containersOf(engine, h, 'cal'), [], 'the worktree teammate has none');
  for (const name of ['ann', 'bo']) assert.deepEqual((await containersOf(engine, h, name))[0]?.Mounts, [], `nothing of this machine is mounted in ${name}'s container`);

  h.api.script('lead', reply(toolUse('queue_merge', { teammate: 'ann' }), toolUse('queue_merge', { teammate: 'bo' }), toolUse('queue_merge', { teammate: 'cal' })), reply('Queued all three.'));
  await h.rt.askLead('Land their work.');
  for (const name of ['ann', 'bo', 'cal'] as const) {
    await waitFor(async () => (await readFile(join(h.root, `${name}.txt`), 'utf8').catch(() => '')).startsWith(`${name} ran in`), 120_000, `${name}.txt landed on main`);
  }
  // Commands ran where each works: in its own container (its hostname is the container's id), or here.
  assert.match(await readFile(join(h.root, 'ann.txt'), 'utf8'), new RegExp(ids.ann!.slice(0, 12)));
  assert.match(await readFile(join(h.root, 'bo.txt'), 'utf8'), new RegExp(ids.bo!.slice(0, 12)));

  for (const name of ['ann', 'bo', 'cal']) await h.rt.stopTeammate(name);
  for (const name of ['ann', 'bo']) assert.equal((await containersOf(engine, h, name))[0]?.State, 'exited', `${name}'s container stopped`);
  const removed = await partsOf(h.rt).runner!.containers.prune(() => false);
  assert.deepEqual(removed.sort(), ['ann', 'bo']);
  assert.deepEqual([...await containersOf(engine, h, 'ann'), ...await containersOf(engine, h, 'bo')], [], 'and removed');
}

test('a team of one worktree and two container teammates finishes: commands in the containers, commits back, the queue lands them, stop and prune', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  await teamFinishes(t, engine);
});

test('the same team through ssh:// (an sshd on 127.0.0.1 as the second machine)', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const ssh = await startSshEngine(engine);
  if ('skip' in ssh) return t.skip(ssh.skip);
  t.after(() => ssh.stop());
  // The product finds the key and the known host in ~/.ssh, as for a user (docs/containers.md).
  const home = await tempDir(t, 'agent-teams-home-');
  await mkdir(join(home, '.ssh'), { mode: 0o700 });
  await writeFile(join(home, '.ssh', 'id_ed25519'), ssh.privateKey, { mode: 0o600 });
  await writeFile(join(home, '.ssh', 'known_hosts'), await readFile(ssh.knownHostsFile));
  const saved = { home: process.env.HOME, agent: process.env.SSH_AUTH_SOCK };
  process.env.HOME = home;
  delete process.env.SSH_AUTH_SOCK;
  t.after(() => {
    process.env.HOME = saved.home;
    if (saved.agent) process.env.SSH_AUTH_SOCK = saved.agent;
  });
  await teamFinishes(t, engine, ssh.host);
});
