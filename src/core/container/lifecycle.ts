// A teammate's container on one engine: found by its labels or created once, started, stopped,
// removed (docs/containers.md, "How it works"). What the container may reach is decided here: no bind mount
// and no volume of the host's at all (the code goes in as a clone, code.ts), network `none`
// unless the user chose `bridge`, no new privileges, a cap on processes, and the cpu and
// memory limits of the settings.
import type Docker from 'dockerode';
import { containerName, labelFilter, LABEL_AGENT, LABEL_BRANCH, LABEL_TEAM, LABEL_WORKSPACE } from './labels';
import type { ContainerSettings } from './settings';

/** Where the teammate's clone lives inside its container. */
export const WORKDIR = '/workspace';

export interface ContainerSpec {
  team: string;
  agent: string;
  branch: string;
  workspace: string;
  image: string;
  settings: Pick<ContainerSettings, 'cpus' | 'memoryBytes' | 'network'>;
}

export interface ContainerRow {
  id: string;
  name: string;
  team: string;
  agent: string;
  branch?: string;
  workspace?: string;
  image: string;
  state: string;
  status: string;
}

function row(c: Docker.ContainerInfo): ContainerRow {
  const l = c.Labels ?? {};
  return {
    id: c.Id, name: (c.Names?.[0] ?? '').replace(/^\//, ''), team: l[LABEL_TEAM] ?? '', agent: l[LABEL_AGENT] ?? '',
    ...(l[LABEL_BRANCH] ? { branch: l[LABEL_BRANCH] } : {}), ...(l[LABEL_WORKSPACE] ? { workspace: l[LABEL_WORKSPACE] } : {}),
    image: c.Image, state: c.State, status: c.Status,
  };
}

/** The product's containers on this engine (one team's, or every team's). */
export async function listContainers(engine: Docker, team?: string, agent?: string): Promise<ContainerRow[]> {
  const found = await engine.listContainers({ all: true, filters: labelFilter(team, agent) });
  return found.map(row);
}

/** The engine's create request for `spec`: pure, so what is (not) shared is tested as data. */
export function createOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  const { cpus, memoryBytes, network } = spec.settings;
  return {
    name: containerName(spec.team, spec.agent),
    Image: spec.image,
    // A sleeping pid 1 under the engine's init (it reaps orphans); commands come by exec.
    Cmd: ['sleep', 'infinity'],
    WorkingDir: WORKDIR,
    Labels: { [LABEL_TEAM]: spec.team, [LABEL_AGENT]: spec.agent, [LABEL_BRANCH]: spec.branch, [LABEL_WORKSPACE]: spec.workspace },
    Env: ['HOME=/root', 'LANG=C.UTF-8', `GIT_AUTHOR_NAME=${spec.agent}`, `GIT_COMMITTER_NAME=${spec.agent}`],
    NetworkDisabled: network === 'none',
    HostConfig: {
      Init: true,
      NetworkMode: network,
      Binds: [],
      Mounts: [],
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: 4096,
      ...(cpus ? { NanoCpus: Math.round(cpus * 1e9) } : {}),
      ...(memoryBytes ? { Memory: memoryBytes } : {}),
    },
  };
}

/**
 * The agent's container, running: the one its labels find (reattached after a reload or a
 * crash), else a new one. Two hosts of one team starting the same teammate at once cannot make
 * two: the engine refuses a second container of the same name, and the loser takes the winner's.
 */
export async function ensureContainer(engine: Docker, spec: ContainerSpec): Promise<{ container: Docker.Container; created: boolean }> {
  let created = false;
  let [found] = await listContainers(engine, spec.team, spec.agent);
  if (!found) {
    try {
      await engine.createContainer(createOptions(spec));
      created = true;
    } catch (e) {
      // Docker answers a taken name with 409; Podman with 500 "… is already in use".
      const err = e as { statusCode?: number; message?: string };
      if (err.statusCode !== 409 && !/already in use/.test(err.message ?? '')) throw e;
    }
    [found] = await listContainers(engine, spec.team, spec.agent);
    if (!found) throw new Error(`the container of ${spec.agent} was created but the engine does not list it`);
  }
  const container = engine.getContainer(found.id);
  if (found.state !== 'running') {
    await container.start().catch((e: { statusCode?: number }) => { if (e.statusCode !== 304) throw e; });
  }
  return { container, created };
}

/** Stops the agent's container (kept, with its clone, for a later start). */
export async function stopContainer(engine: Docker, team: string, agent: string, timeoutS = 5): Promise<boolean> {
  const [found] = await listContainers(engine, team, agent);
  if (!found) return false;
  if (found.state === 'running') await engine.getContainer(found.id).stop({ t: timeoutS }).catch((e: { statusCode?: number }) => { if (e.statusCode !== 304) throw e; });
  return true;
}

/** Removes the agent's container and its clone. */
export async function removeContainer(engine: Docker, team: string, agent: string): Promise<boolean> {
  const found = await listContainers(engine, team, agent);
  await Promise.all(found.map((c) => engine.getContainer(c.id).remove({ force: true }).catch((e: { statusCode?: number }) => { if (e.statusCode !== 404) throw e; })));
  return found.length > 0;
}
