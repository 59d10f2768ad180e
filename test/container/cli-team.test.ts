// Container teammates through the real CLI (docs/containers.md): `/spawn … --container` in the
// interactive session, a kill -9 of that session mid-command and a new session that resumes
// the teammate in the same container (found by its labels, its clone kept); `run --with <name>
// --container` in a headless run; `--container-host` naming the engine.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import Docker from 'dockerode';
import { reply, toolUse } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { cleanEnv, fakeApi, runCli, session } from '../cli/cli-proc';
import { engineForFile, type TestEngine } from './engine-fixture';
import { gitIn } from './helpers';

const testEngine = engineForFile();

/** A git workspace whose `.team/settings.json` names the test image; its containers removed after. */
async function workspace(t: Parameters<typeof tempDir>[0], engine: TestEngine): Promise<string> {
  const root = await tempDir(t, 'agent-teams-cli-box-');
  await gitIn(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, 'README.md'), 'hello\n');
  await writeFile(join(root, '.gitignore'), '.team/\n.tasks/\n');
  await gitIn(root, 'add', '.');
  await gitIn(root, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-q', '-m', 'first');
  await mkdir(join(root, '.team'), { recursive: true });
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ container: { image: engine.image } }));
  t.after(async () => {
    for (const c of await containers(engine, root)) await client(engine).getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  });
  return root;
}

const client = (engine: TestEngine) => new Docker({ socketPath: engine.host.replace(/^unix:\/\//, '') });
const containers = (engine: TestEngine, root: string, agent?: string) => client(engine).listContainers({ all: true, filters: { label: [`agent-teams.workspace=${root}`, ...(agent ? [`agent-teams.agent=${agent}`] : [])] } });

test('/spawn --container; kill -9 of the session mid-command; the next session resumes the teammate in the same container', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await workspace(t, engine);
  const api = await fakeApi(t);
  api.script('ann',
    reply(toolUse('bash', { command: 'echo draft > wip.txt && hostname' })),
    reply(toolUse('bash', { command: 'echo long-command-started; sleep 20' })),
    reply(toolUse('bash', { command: 'cat wip.txt; hostname' })),
    reply(toolUse('idle', {})),
  );
  const args = ['--bash', 'allow', '--trust', '--container-host', engine.host];
  const first = await session(t, root, api, args);
  await first.ready();
  first.send('/spawn ann dev --container Write a draft, then run the long command.');
  await first.expect(/ann works in a container of its own on branch team\/ann\./, 60_000);
  await waitFor(async () => api.requests('ann').length >= 2, 60_000, 'the long command started');
  const [box] = await containers(engine, root, 'ann');
  assert.ok(box);
  assert.match(JSON.stringify(api.requests('ann')[1]!.body.messages.at(-1)), new RegExp(box.Id.slice(0, 12)));
  await new Promise((r) => setTimeout(r, 500));
  first.kill();
  await first.exited;

  const second = await session(t, root, api, args);
  await second.ready();
  await waitFor(async () => api.requests('ann').length >= 4, 90_000, 'ann resumed by the next session');
  const resumed = JSON.stringify(api.requests('ann')[3]!.body.messages.at(-1));
  assert.match(resumed, /draft\\n/, 'its clone was kept');
  assert.match(resumed, new RegExp(box.Id.slice(0, 12)), 'in the same container');
  assert.match(JSON.stringify(api.requests('ann')[2]!.body.messages), /Interrupted: the host restarted/);
  assert.deepEqual((await containers(engine, root, 'ann')).map((c) => c.Id), [box.Id], 'never a second container');
  second.kill();
});

test('run --with <name> --container: the headless run\'s teammate works in a container', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await workspace(t, engine);
  const api = await fakeApi(t);
  api.script('bo', reply(toolUse('bash', { command: 'hostname; test -d /workspace/.git && echo in-clone' })), reply(toolUse('idle', {})));
  api.script('lead', 'The team is ready.');
  const r = await runCli(['run', '--root', root, '--idle-timeout', '0', '--trust', '--bash', 'allow', '--container-host', engine.host, '--with', 'bo', '--container', 'Get ready.'], {
    env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }),
  });
  assert.equal(r.code, 0, r.stderr);
  const [box] = await containers(engine, root, 'bo');
  assert.ok(box, 'bo has a container');
  const out = JSON.stringify(api.requests('bo')[1]!.body.messages.at(-1));
  assert.match(out, new RegExp(`${box.Id.slice(0, 12)}\\\\nin-clone`));
  const bad = await runCli(['run', '--root', root, '--container-host', 'docker.example', 'x'], { env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }) });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--container-host: expected unix:\/\/\/path, tcp:\/\/host:port or ssh:\/\/user@host/);
});
