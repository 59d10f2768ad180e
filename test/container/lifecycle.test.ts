// A teammate's container's life, against a real engine: created once with its labels, no bind
// mount and no network; found again after the host restarts (never duplicated), its work kept;
// stopped, removed, pruned; placed on a reachable engine when another does not answer; a lost
// engine an error on that teammate only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerCommandEnv } from '../../src/core/container/backend';
import { connectEngine } from '../../src/core/container/engine';
import { REMOVED_ENV } from '../../src/core/sandbox/policy';
import { createOptions } from '../../src/core/container/lifecycle';
import { leastBusy } from '../../src/core/container/placement';
import { engineForFile, type TestEngine } from './engine-fixture';
import { backendFor, RUN, userRepo } from './helpers';

const testEngine = engineForFile();

test('the create request shares nothing of the host: no bind, no mount, network none, limits applied', () => {
  const o = createOptions({ team: 't', agent: 'a', branch: 'team/a', workspace: '/home/u/repo', image: 'img', settings: { network: 'none', cpus: 1.5, memoryBytes: 2 ** 30 } });
  assert.deepEqual(o.HostConfig?.Binds, []);
  assert.deepEqual(o.HostConfig?.Mounts, []);
  assert.equal(o.HostConfig?.NetworkMode, 'none');
  assert.equal(o.HostConfig?.NanoCpus, 1.5e9);
  assert.equal(o.HostConfig?.Memory, 2 ** 30);
  assert.equal(o.HostConfig?.Privileged, undefined);
  assert.deepEqual(o.Labels, { 'agent-teams.team': 't', 'agent-teams.agent': 'a', 'agent-teams.branch': 'team/a', 'agent-teams.workspace': '/home/u/repo' });
  assert.doesNotMatch(JSON.stringify(o.Env), /\/home\/u\/repo|ANTHROPIC/);
});

test("a container's commands get an environment of their own, never a variable the policy table removes", () => {
  const env = containerCommandEnv({ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'o', FOO: 'bar' });
  for (const k of REMOVED_ENV) assert.equal(env[k], undefined, k);
  assert.equal(env.FOO, 'bar');
  assert.equal(env.HOME, '/root');
});

test('after a restart of the host the same container is found by its labels, its work kept, never a second', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['gus', 'new']);
  const teamName = `restart${process.pid}`;
  const first = backendFor(t, engine, root, { cpus: 1, memory: '256m' }, teamName);
  const a = await first.start('gus');
  await first.exec('gus', 'echo uncommitted > wip.txt', RUN);
  const e = await connectEngine(engine.host);
  const info = await e.getContainer(a.id).inspect();
  assert.equal(info.HostConfig.NetworkMode, 'none');
  assert.equal(info.HostConfig.NanoCpus, 1e9);
  assert.equal(info.HostConfig.Memory, 256 * 2 ** 20);
  assert.deepEqual(info.Mounts ?? [], [], 'no mount of the host');
  assert.equal(info.Config.Labels['agent-teams.agent'], 'gus');
  await first.dispose(); // the host goes away without stopping anything
  const second = backendFor(t, engine, root, {}, teamName);
  const [again, alsoAgain] = await Promise.all([second.start('gus'), second.start('gus')]);
  assert.equal(again.id, a.id);
  assert.equal(alsoAgain.id, a.id);
  assert.equal(again.created, false);
  assert.equal(again.clone, 'kept');
  assert.equal((await second.exec('gus', 'cat wip.txt', RUN)).output, 'uncommitted\n');
  assert.equal((await second.list()).containers.length, 1);
  // Two hosts starting a new teammate at the same moment end with one container between them.
  const [x, y] = [backendFor(t, engine, root, {}, teamName), backendFor(t, engine, root, {}, teamName)];
  const [sx, sy] = await Promise.all([x.start('new'), y.start('new')]);
  assert.equal(sx.id, sy.id);
  assert.equal([sx.created, sy.created].filter(Boolean).length, 1);
  assert.equal((await x.list()).containers.filter((c) => c.agent === 'new').length, 1);
});

test('stop keeps the container, remove and prune take it away; prune spares the living', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['hal', 'ivy']);
  const b = backendFor(t, engine, root);
  await Promise.all([b.start('hal'), b.start('ivy')]);
  assert.equal(await b.stop('hal'), true);
  const rows = (await b.list()).containers;
  assert.deepEqual(rows.map((r) => [r.agent, r.state]).sort(), [['hal', 'exited'], ['ivy', 'running']]);
  // A stopped teammate that comes back gets its container (and clone) again.
  const back = await b.start('hal');
  assert.equal(back.created, false);
  assert.equal((await b.exec('hal', 'git rev-parse --abbrev-ref HEAD', RUN)).output, 'team/hal\n');
  const pruned = await b.prune((agent) => agent === 'ivy');
  assert.deepEqual(pruned.map((r) => r.agent), ['hal']);
  assert.deepEqual((await b.list()).containers.map((r) => r.agent), ['ivy']);
  assert.equal(await b.remove('ivy'), true);
  assert.deepEqual((await b.list()).containers, []);
});

test('placement: the least busy reachable engine; an engine that does not answer is passed over', async (t) => {
  const engine = testEngine();
  assert.equal(leastBusy([{ url: 'a', running: 3 }, { url: 'b', running: 1 }, { url: 'c', running: 1 }]), 'b');
  assert.equal(leastBusy([{ url: 'a', error: 'down' }, { url: 'b', running: 9 }]), 'b');
  assert.equal(leastBusy([{ url: 'a', error: 'down' }]), undefined);
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['jo']);
  const b = backendFor(t, engine, root, { host: 'unix:///nonexistent/engine.sock', hosts: [engine.host] });
  const started = await b.start('jo');
  assert.equal(started.host, engine.host);
});

test('a lost engine is an error on that teammate, said clearly, and retried on its next command', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  if (!engine.down || !engine.up) return t.skip('the engine under test cannot be stopped by the test');
  const root = await userRepo(t, ['kim']);
  const b = backendFor(t, engine, root);
  await b.start('kim');
  await engine.down();
  t.after(() => (engine as TestEngine).up!().catch(() => undefined));
  const lost = await b.exec('kim', 'echo hi', RUN);
  assert.equal(lost.exitCode, null);
  assert.match(lost.error ?? '', /the container of kim is not reachable: the container engine at unix:\/\/\S+ is not reachable/);
  await engine.up();
  const retried = await b.exec('kim', 'echo back', RUN);
  assert.equal(retried.output, 'back\n', retried.error);
  const none = backendFor(t, { ...engine, host: 'unix:///nonexistent/engine.sock' }, root);
  await assert.rejects(none.start('kim'), /no container engine answered: unix:\/\/\/nonexistent\/engine\.sock/);
});
