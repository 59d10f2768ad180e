// A container teammate's container state reaches the hosts (docs/containers.md, "In VS Code"):
// the session emits `container` events — each step of the start, then running with the engine
// and the start's time, stopped at shutdown, engine unreachable with the reason — and
// `containerState(name)` answers the same (what the Team tree's row reads). Also the picker's
// check, `containerProblem()`: null with an engine and an image, the reason without.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { userSends } from '../helpers/session-parts';
import { engineForFile } from './engine-fixture';
import { containerTeam } from './helpers';
import type { ContainerState } from '../../src/core/session';

const testEngine = engineForFile();

const statesOf = (events: Array<{ type: string }>, agent: string) =>
  events.filter((e): e is { type: 'container'; agent: string; container: ContainerState | null } => e.type === 'container' && (e as { agent?: string }).agent === agent).map((e) => e.container);

test('a container teammate\'s start is seen step by step, then running on its engine; its shutdown is "stopped"', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const h = await containerTeam(t, engine);
  assert.equal(await h.rt.containerProblem(), null, 'an engine and an image: the picker offers the container');
  h.api.script('ann', reply(toolUse('bash', { command: 'cat /etc/os-release' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Where are you?', isolation: 'container' }, 'lead');
  await waitFor(async () => h.rt.containerState('ann')?.state === 'running', 60_000, 'ann\'s container running');
  const seen = statesOf(h.events, 'ann');
  const steps = seen.filter((s) => s?.state === 'starting').map((s) => s!.detail);
  for (const step of ['choosing an engine…', 'checking the image…', 'image ready', 'creating…', 'cloning…']) assert.ok(steps.includes(step), `${step} in ${steps.join(', ')}`);
  assert.ok(steps.indexOf('creating…') < steps.indexOf('cloning…'));
  const running = h.rt.containerState('ann')!;
  assert.equal(running.host, engine.host);
  assert.ok(running.startMs! > 0 && running.startMs! < 60_000);
  assert.deepEqual(seen.at(-1), running, 'the last event is the state the session answers');
  await waitFor(async () => h.api.requests('ann').length >= 2, 60_000, 'ann ran its command');
  assert.match(JSON.stringify(h.api.requests('ann')[1]!.body.messages.at(-1)), /Debian/);

  await h.rt.stopTeammate('ann');
  assert.equal(h.rt.containerState('ann')?.state, 'stopped');
  assert.equal(statesOf(h.events, 'ann').at(-1)?.state, 'stopped');
});

test('an engine that does not answer: the picker\'s check says why, and a teammate already placed there is "engine unreachable"', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  if (!engine.down || !engine.up) return t.skip('the engine cannot be stopped here (not the test engine)');
  const h = await containerTeam(t, engine);
  h.api.script('bo', reply(toolUse('idle', {})), reply(toolUse('bash', { command: 'true' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bo', role: 'dev', prompt: 'Wait.', isolation: 'container' }, 'lead');
  await waitFor(async () => h.rt.containerState('bo')?.state === 'running' && h.api.requests('bo').length >= 1, 60_000, 'bo running');
  await h.rt.dispose();
  await engine.down();
  try {
    const rt = await h.restart();
    assert.match((await rt.containerProblem()) ?? '', /no container engine answered/);
    await userSends(rt, 'bo', 'Run it.');
    await waitFor(async () => rt.containerState('bo')?.state === 'unreachable', 60_000, 'bo unreachable');
    assert.match(rt.containerState('bo')!.detail!, /engine|answer|connect|ENOENT/i);
    await rt.dispose();
  } finally {
    // Up again before the cleanup removes the team's containers.
    await engine.up();
  }
});
