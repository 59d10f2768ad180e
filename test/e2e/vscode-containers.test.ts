// Container teammates in a real VS Code (code-server + Chromium, the packaged extension, the
// fake Messages API as the model, a local Podman engine): Spawn Teammate → "Where it works" →
// "In a container" starts the teammate in its own container; the Team view's `container` row
// under it shows the start's steps (the image built from the workspace's .devcontainer/, …),
// then "running"; the scripted model's command runs in the container (the image's Debian, not
// this machine's folder); Stop Teammate brings the row to "stopped". Skipped, with the reason,
// where Podman cannot be provisioned (test/container/engine-fixture.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { reply, startFakeApi, toolUse, type FakeApi } from '../fake-api';
import { startTestEngine, type TestEngine } from '../container/engine-fixture';
import type { Workbench } from './harness/browser';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';
const git = (cwd: string, ...args: string[]) => promisify(execFile)('git', args, { cwd });

describe('VS Code containers: spawn in a container from the picker, its state in the Team view', () => {
  const s = {
    workspace: '', api: undefined as FakeApi | undefined, vs: undefined as SuiteWorkbench | undefined, wb: undefined as Workbench | undefined,
    engine: undefined as TestEngine | undefined, skip: '',
  };
  before(async () => {
    const engine = await startTestEngine();
    if ('skip' in engine) { s.skip = engine.skip; return; }
    s.engine = engine;
    s.api = await startFakeApi();
    s.workspace = await mkdtemp(join(tmpdir(), 'agent-teams-containers-'));
    await git(s.workspace, 'init', '-q', '-b', 'main');
    await git(s.workspace, 'config', 'user.name', 'User');
    await git(s.workspace, 'config', 'user.email', 'user@example.com');
    await writeFile(join(s.workspace, 'README.md'), 'hello\n');
    await writeFile(join(s.workspace, '.gitignore'), '.team/\n.tasks/\n.worktrees/\n');
    // An image built from the workspace's .devcontainer/, new each run (a few seconds of RUN):
    // the row has a step to show while it builds.
    await mkdir(join(s.workspace, '.devcontainer'));
    await writeFile(join(s.workspace, '.devcontainer', 'devcontainer.json'), JSON.stringify({ build: { dockerfile: 'Dockerfile' } }));
    await writeFile(join(s.workspace, '.devcontainer', 'Dockerfile'), `FROM ${engine.image}\nRUN sleep 3 && echo ${randomBytes(6).toString('hex')} > /etc/e2e-build\n`);
    await git(s.workspace, 'add', '.');
    await git(s.workspace, 'commit', '-q', '-m', 'first');
    s.vs = await openSuiteWorkbench('containers', {
      workspace: s.workspace, apiUrl: s.api.url, apiKey: 'sk-e2e-containers',
      settings: { 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.container.host': engine.host },
    });
    s.wb = s.vs.wb;
    // agentTeams.container.host is a machine setting: in code-server (a remote window) it is
    // read from the machine's settings, not the user's.
    await mkdir(join(s.vs.server.userDataDir, 'Machine'), { recursive: true });
    await writeFile(join(s.vs.server.userDataDir, 'Machine', 'settings.json'), JSON.stringify({ 'agentTeams.container.host': engine.host }));
  });
  after(async () => {
    await s.vs?.close();
    await s.api?.close();
    if (s.engine && s.workspace) {
      const docker = new Docker({ socketPath: s.engine.host.replace(/^unix:\/\//, '') });
      for (const c of await docker.listContainers({ all: true, filters: { label: [`agent-teams.workspace=${s.workspace}`] } }).catch(() => [])) {
        await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      }
    }
    await s.engine?.stop();
    if (s.workspace) await rm(s.workspace, { recursive: true, force: true });
  });

  it('spawns from the picker, shows the start and "running", runs the command in the container, "stopped" after Stop', async (t) => {
    if (s.skip) return t.skip(s.skip);
    const wb = s.wb!;
    const api = s.api!;
    try {
      api.script('cy',
        reply(toolUse('bash', { command: `cat /etc/os-release; cat /etc/e2e-build; test ! -e ${JSON.stringify(s.workspace)} && echo not-on-this-machine` })),
        reply(toolUse('idle', {})),
      );
      // Every label the container row takes, as the tree draws it (a step may last a moment only).
      await wb.page.evaluate(() => {
        const w = window as unknown as { seenRows: string[] };
        w.seenRows = [];
        const note = () => document.querySelectorAll('.monaco-list-row[aria-label*="cy\'s container"]').forEach((r) => {
          const l = r.getAttribute('aria-label')!;
          if (w.seenRows.at(-1) !== l) w.seenRows.push(l);
        });
        new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
      });
      const t0 = Date.now();
      await wb.runCommand('Agent Teams: Spawn Teammate');
      await wb.answer('Spawn Teammate', 'cy: builder');
      await wb.answer('Spawn cy: first instructions', 'Say where you run.');
      await wb.pick('Spawn cy: Enter to start', 'Where it works');
      // The engine answered (the row does not say "unavailable"): choose the container.
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'cloned into its own container' }).first().waitFor({ timeout: 30_000 });
      await wb.pick('Spawn cy: where does it work?', 'In a container');
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'in a container' }).first().waitFor();
      await wb.pick('Spawn cy: Enter to start', 'Spawn cy');
      const spawned = Date.now();

      await wb.treeRow(CONTAINER, 'cy\'s container, on podman.sock: running').first().waitFor({ timeout: 180_000 });
      const running = Date.now();
      const seen = await wb.page.evaluate(() => (window as unknown as { seenRows: string[] }).seenRows);
      console.log(`container teammate: picker ${((spawned - t0) / 1000).toFixed(1)} s, spawn to "running" in the tree ${((running - spawned) / 1000).toFixed(1)} s; rows seen: ${seen.join(' | ')}`);
      assert.ok(seen.some((l) => /building the image…/.test(l)), `the build was shown: ${seen.join(' | ')}`);
      assert.ok(seen.findIndex((l) => /running/.test(l)) > seen.findIndex((l) => /building the image…/.test(l)));

      const result = await until('cy ran its command', async () => api.requests('cy')[1]?.body.messages.at(-1), 60_000);
      const out = JSON.stringify(result);
      assert.match(out, /Debian GNU\/Linux/);
      assert.match(out, /not-on-this-machine/, 'the user\'s folder is not in the container');

      await until('cy idle', async () => (await wb.treeRow(CONTAINER, 'cy, builder, idle').count()) > 0, 60_000);
      await wb.runCommand('Agent Teams: Stop Teammate');
      await wb.pick('Stop Teammate', 'cy');
      await wb.treeRow(CONTAINER, 'cy\'s container, on podman.sock: stopped').first().waitFor({ timeout: 60_000 });
    } catch (err) {
      await failureReport(err, { ...s, server: s.vs?.server });
    }
  });
});
