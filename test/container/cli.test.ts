// `agent-teams containers [--json]` and `agent-teams containers prune` through the real CLI,
// against a real engine: the team's containers listed with their state and host; prune removes
// only those of teammates gone from the roster; a bad setting or an absent engine is said.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ContainerBackend } from '../../src/core/container/backend';
import { resolveContainerSettings } from '../../src/core/container/settings';
import { cleanEnv, runCli } from '../cli/cli-proc';
import { engineForFile } from './engine-fixture';
import { userRepo } from './helpers';

const testEngine = engineForFile();

async function roster(root: string, team: string, members: string[], shutDown: string[] = []): Promise<void> {
  await mkdir(join(root, '.team'), { recursive: true });
  const list = [...members.map((name) => ({ name, role: 'dev', status: 'working' })), ...shutDown.map((name) => ({ name, role: 'dev', status: 'shutdown' }))];
  await writeFile(join(root, '.team', 'config.json'), JSON.stringify({ team_name: team, members: list }));
}

test('containers lists the team\'s containers; prune removes those of teammates gone from the roster or shut down', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['lu', 'max', 'ned']);
  const teamName = `cli${process.pid}`;
  await roster(root, teamName, ['lu', 'max', 'ned']);
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ container: { host: engine.host, image: engine.image } }));
  const { host, image } = engine;
  const b = new ContainerBackend({ root, teamName, settings: () => resolveContainerSettings({ host, image }) });
  t.after(async () => { await b.prune(() => false).catch(() => undefined); await b.dispose(); });
  await Promise.all([b.start('lu'), b.start('max'), b.start('ned')]);
  await b.stop('max');

  const listed = await runCli(['--root', root, 'containers', '--json'], { env: cleanEnv() });
  assert.equal(listed.code, 0, listed.stderr);
  const json = JSON.parse(listed.stdout) as { hosts: string[]; containers: { agent: string; state: string; host: string }[] };
  assert.deepEqual(json.hosts, [engine.host]);
  assert.deepEqual(json.containers.map((c) => [c.agent, c.state, c.host]).sort(), [['lu', 'running', engine.host], ['max', 'exited', engine.host], ['ned', 'running', engine.host]]);
  const text = await runCli(['--root', root, 'containers'], { env: cleanEnv() });
  assert.match(text.stdout, /^AGENT\s+STATE/);
  assert.match(text.stdout, /\nlu\s+running/);

  await roster(root, teamName, ['lu'], ['ned']);
  const pruned = await runCli(['--root', root, 'containers', 'prune', '--json'], { env: cleanEnv() });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.deepEqual((JSON.parse(pruned.stdout) as { removed: { agent: string }[] }).removed.map((r) => r.agent).sort(), ['max', 'ned']);
  assert.deepEqual((await b.list()).containers.map((c) => c.agent), ['lu']);
});

test('a bad container setting and an engine that does not answer are said, exit non-zero', async (t) => {
  const engine = testEngine();
  const root = await userRepo(t, []);
  await roster(root, 'bad', []);
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ container: { host: 'ftp://x', network: 'host' } }));
  const bad = await runCli(['--root', root, 'containers'], { env: cleanEnv() });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /"container": host: expected unix:\/\/\/path.*network:/);
  await writeFile(join(root, '.team', 'settings.json'), '{}');
  const down = await runCli(['--root', root, 'containers', '--container-host', 'unix:///nonexistent/engine.sock'], { env: cleanEnv() });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /the container engine at unix:\/\/\/nonexistent\/engine\.sock did not answer/);
});
