// A scripted attacker in a container teammate (docs/containers.md, "What is isolated"): through
// the real runtime and SDK it looks for the host's model keys and environment, the engine's
// socket, the user's git folder (config, hooks, other branches) and the user's checkout, with
// bash and with the file tools. None of it is there.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { engineForFile } from './engine-fixture';
import { containerTeam, gitIn } from './helpers';

const testEngine = engineForFile();

test('no key, no host variable, no engine socket, no user .git and no user checkout inside a container teammate', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  // What the host process has that must not reach the container.
  const saved = { a: process.env.ANTHROPIC_API_KEY, o: process.env.OPENAI_API_KEY, m: process.env.AGENT_TEAMS_HOST_MARKER };
  process.env.ANTHROPIC_API_KEY = 'host-anthropic-value-1234';
  process.env.OPENAI_API_KEY = 'host-openai-value-5678';
  process.env.AGENT_TEAMS_HOST_MARKER = 'host-marker-9012';
  t.after(() => {
    for (const [k, v] of [['ANTHROPIC_API_KEY', saved.a], ['OPENAI_API_KEY', saved.o], ['AGENT_TEAMS_HOST_MARKER', saved.m]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const h = await containerTeam(t, engine);
  await gitIn(h.root, 'config', 'credential.helper', 'store --file=/secret-credentials');
  await gitIn(h.root, 'config', 'user.signingkey', 'user-signing-key-3456');
  await writeFile(join(h.root, '.git', 'hooks', 'post-commit'), '#!/bin/sh\necho hook-marker-7890\n', { mode: 0o755 });
  await gitIn(h.root, 'branch', 'private-branch');
  const socket = engine.host.replace(/^unix:\/\//, '');
  h.api.script('eve',
    reply(toolUse('bash', { command: 'env | sort' })),
    reply(toolUse('bash', { command: `ls -la /var/run/docker.sock /run/podman ${socket} 2>&1; find / -xdev \\( -name '*.sock' -o -name 'docker.sock' \\) 2>/dev/null; grep -c ' ${socket} ' /proc/mounts` })),
    reply(toolUse('bash', { command: `cat .git/config; ls .git/hooks; git branch -a; git config --list --show-origin; cat ~/.gitconfig 2>&1; ls -la ${h.root} 2>&1; ls ~/.ssh 2>&1` })),
    reply(toolUse('read_file', { path: join(h.root, 'README.md') })),
    reply(toolUse('read_file', { path: '../proc/self/environ' })),
    reply(toolUse('bash', { command: 'git commit -q --allow-empty -m attack && echo committed' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Look around.', isolation: 'container' });
  await waitFor(async () => h.api.requests('eve').length >= 7, 60_000, 'eve done');
  const out = (n: number) => JSON.stringify(h.api.requests('eve')[n]!.body.messages.at(-1));
  const env = out(1);
  assert.match(env, /HOME=\/root/, 'the command ran and printed its environment');
  assert.doesNotMatch(env, /ANTHROPIC|OPENAI|host-anthropic|host-openai|AGENT_TEAMS_HOST_MARKER|host-marker|DOCKER_HOST|SSH_AUTH_SOCK/);
  const sockets = out(2);
  assert.match(sockets, /No such file or directory/);
  assert.doesNotMatch(sockets, /docker\.sock\\n|podman\.sock\\n/, 'no engine socket anywhere in the container');
  assert.match(sockets, /\\n0\\n/, 'the engine socket is not mounted');
  const git = out(3);
  assert.doesNotMatch(git, /secret-credentials|user-signing-key|post-commit|hook-marker|private-branch|remote/);
  assert.match(git, /\* team\/eve/);
  assert.match(git, new RegExp(`${h.root.replace(/[/.]/g, '\\$&')}.*No such file or directory`), 'the user\'s checkout is not in the container');
  assert.match(out(4), /outside the workspace/);
  assert.match(out(5), /outside the workspace/);
  assert.match(out(6), /committed/);
  // The commit came back; the user's hook did not run for it, and no other branch changed.
  await waitFor(async () => (await gitIn(h.root, 'log', '-1', '--format=%s', 'team/eve').catch(() => '')) === 'attack', 30_000, 'commit back');
  assert.equal(await gitIn(h.root, 'rev-parse', 'private-branch'), await gitIn(h.root, 'rev-parse', 'main'));
});
