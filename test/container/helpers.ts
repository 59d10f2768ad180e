// What the container tests share: a user repository with a teammate's branch, a backend on the
// test engine with a team name of its own, and the cleanup of its containers; a team of agents
// (the runtime harness) over a git workspace whose containers run on the test engine.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import Docker from 'dockerode';
import { harness, type Harness } from '../runtime/harness';
import type { Approver } from '../../src/core/runtime/types';
import { ContainerBackend } from '../../src/core/container/backend';
import { resolveContainerSettings, type ContainerFile } from '../../src/core/container/settings';
import { tempDir } from '../helpers/tmp';
import type { TestEngine } from './engine-fixture';

export const run = promisify(execFile);
export const gitIn = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout.trim();

/** A repository with one commit on main and `team/<agent>` for each agent at it. */
export async function userRepo(t: TestContext, agents: string[]): Promise<string> {
  const root = await tempDir(t, 'agent-teams-container-');
  await gitIn(root, 'init', '-q', '-b', 'main');
  await gitIn(root, 'config', 'user.name', 'User');
  await gitIn(root, 'config', 'user.email', 'user@example.com');
  await writeFile(join(root, 'README.md'), 'hello\n');
  await gitIn(root, 'add', '.');
  await gitIn(root, 'commit', '-q', '-m', 'first');
  for (const a of agents) await gitIn(root, 'branch', `team/${a}`);
  return root;
}

/** A backend on `engine` for a team no other test uses; its containers removed after the test. */
export function backendFor(t: TestContext, engine: TestEngine, root: string, file: ContainerFile = {}, teamName = `t${randomBytes(4).toString('hex')}`): ContainerBackend {
  const b = new ContainerBackend({ root, teamName, settings: () => resolveContainerSettings({ host: engine.host, image: engine.image, ...file }) });
  t.after(async () => {
    await b.prune(() => false).catch(() => undefined);
    await b.dispose();
  });
  return b;
}

export const RUN = { timeoutMs: 30_000, maxOutputBytes: 100_000 };

/** A harness whose workspace is a git repository (README.md on main) and whose containers run on the test engine. */
export async function containerTeam(t: TestContext, engine: TestEngine, settings = {}, approver: Partial<Approver> = {}): Promise<Harness> {
  const h = await harness(t, { container: { host: engine.host, image: engine.image }, ...settings }, 'allow', approver);
  await gitIn(h.root, 'init', '-q', '-b', 'main');
  await gitIn(h.root, 'config', 'user.name', 'User');
  await gitIn(h.root, 'config', 'user.email', 'user@example.com');
  await writeFile(join(h.root, 'README.md'), 'hello\n');
  await writeFile(join(h.root, '.gitignore'), '.team/\n.tasks/\n.worktrees/\n');
  await gitIn(h.root, 'add', '.');
  await gitIn(h.root, 'commit', '-q', '-m', 'first');
  // The team's containers go with the test (a host going away only leaves them running).
  t.after(async () => {
    // Its agents first: a command still running would start the container again.
    await h.rt.dispose();
    const docker = engineClient(engine);
    for (const c of await docker.listContainers({ all: true, filters: { label: [`agent-teams.workspace=${h.root}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  });
  return h;
}

const engineClient = (engine: TestEngine) => new Docker({ socketPath: engine.host.replace(/^unix:\/\//, '') });

/** The containers of this workspace's `agent` on the engine. */
export async function containersOf(engine: TestEngine, h: Harness, agent: string): Promise<Docker.ContainerInfo[]> {
  return engineClient(engine).listContainers({ all: true, filters: { label: [`agent-teams.agent=${agent}`, `agent-teams.workspace=${h.root}`] } });
}

/** A request through the container's proxy from bash alone (the test image has no curl): its answer, printed. */
export const viaProxy = (url: string) => `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET ${url} HTTP/1.0\\r\\n\\r\\n' >&3 && timeout 20 cat <&3`;

/** Sets `$b` to the running network bridge's pid in the container and prints `bridge=<pid>`. */
export const findBridge = 'for p in /proc/[0-9]*; do case "$(readlink $p/exe 2>/dev/null)" in /tmp/.agent-teams-netbridge-*) b=${p#/proc/};; esac; done; echo bridge=$b';
