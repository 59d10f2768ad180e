// The container backend of one team (docs/containers.md): each teammate that runs in
// a container gets one, on the least busy of the team's engines, found again by its labels after
// a reload or a crash; its commands run there through one command loop (command-loop.ts); its
// branch goes in as a clone and comes back as a bundle (code.ts). A lost engine is an error on
// that teammate's commands (retried once on the next command), never on the rest of the team.
import { posix } from 'node:path';
import type Docker from 'dockerode';
import { proxyVariables, REMOVED_ENV } from '../sandbox/policy';
import { NetworkProxy, type HostGate } from '../sandbox/proxy';
import type { ShellResult } from '../exec/shell';
import { CommandLoop } from './command-loop';
import { bringBack, cloneIn, ensureHostBranch, type BroughtBack } from './code';
import { connectEngine, defaultEngineUrl, pingEngine, type Engine, type EngineOptions } from './engine';
import { ensureImage, resolveImageSource } from './image';
import { teamId } from './labels';
import { ensureContainer, listContainers, removeContainer, stopContainer, WORKDIR, type ContainerRow } from './lifecycle';
import { startNetBridge, type NetBridge } from './net-bridge';
import { leastBusy, measureLoads } from './placement';
import { putFile } from './put-file';
import type { ContainerSettings } from './settings';

export interface ContainerBackendOptions {
  /** The user's repository (where branches come back). */
  root: string;
  teamName: string;
  settings(): ContainerSettings;
  /** What a starting container is doing (image pull/build lines, "cloning…"), for the Team tree; `host` once placed. */
  progress?(agent: string, line: string, host?: string): void;
  /** How to reach the engines (an ssh key other than the agent's or ~/.ssh/id_*). */
  engineOptions?: EngineOptions;
  /**
   * Whether `agent`'s command may reach a host (the sandbox's allowHost: allowed domains, else
   * asked once). With it, a container of network `none` gets the product's proxy through its
   * bridge (net-bridge.ts); without it, no network at all.
   */
  network?(agent: string): HostGate;
  /** Where the bridge programs are (default: next to this module). */
  bridgeDir?: string;
}

export interface ContainerExecOptions {
  /** Folder inside the teammate's checkout (relative; default its root). */
  cwd?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface StartedContainer {
  agent: string;
  host: string;
  id: string;
  /** A new container, or one found again by its labels. */
  created: boolean;
  /** The branch was cloned in now, or the container's clone was kept. */
  clone: 'cloned' | 'kept';
  image: string;
  /** `proxy`: commands reach hosts through the product's proxy; `none`: no network; `bridge`: the engine's network (the user's choice). */
  network: 'proxy' | 'none' | 'bridge';
}

interface Attached {
  info: StartedContainer;
  branch: string;
  engine: Engine;
  loop: CommandLoop;
  /** The way to the proxy (network `none` with a host gate), restarted when it ended. */
  net?: { proxy: NetworkProxy; bridge: NetBridge | null; architecture: string };
}

/**
 * The environment of every command in a container: made here, nothing of the host's (no
 * socket, no agent variable), and never a variable the policy table removes (REMOVED_ENV).
 */
export function containerCommandEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    HOME: '/root', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', TERM: 'dumb', GIT_PAGER: 'cat', PAGER: 'cat', ...extra,
  };
  for (const k of REMOVED_ENV) delete env[k];
  return env;
}

export type ContainerListing = ContainerRow & { host: string };

export class ContainerBackend {
  readonly team: string;
  private readonly attached = new Map<string, Promise<Attached>>();
  private readonly engines = new Map<string, Promise<Engine>>();

  constructor(private readonly opts: ContainerBackendOptions) {
    this.team = teamId(opts.teamName, opts.root);
  }

  /** The team's engine addresses: the settings', else the default engine's. */
  async hosts(): Promise<string[]> {
    const set = this.opts.settings().hosts;
    if (set.length) return set;
    const url = await defaultEngineUrl();
    if (!url) throw new Error('no container engine: set container.host (agentTeams.container.host) or DOCKER_HOST, or start Docker or Podman (docs/containers.md)');
    return [url];
  }

  engine(url: string): Promise<Engine> {
    let e = this.engines.get(url);
    if (!e) {
      e = connectEngine(url, this.opts.engineOptions);
      this.engines.set(url, e);
      e.catch(() => this.engines.delete(url));
    }
    return e;
  }

  /**
   * The agent's container, running, with its branch cloned in: found again by its labels on
   * any of the team's engines, else created on the least busy. The host's branch (default
   * `team/<agent>`) is made at the checked-out commit when it does not exist. Idempotent.
   */
  start(agent: string, branch = `team/${agent}`): Promise<StartedContainer> {
    const hit = this.attached.get(agent);
    if (hit) {
      return hit.then((a) => (a.loop.alive ? a.info : this.restart(agent, branch)), () => this.restart(agent, branch));
    }
    return this.restart(agent, branch);
  }

  private restart(agent: string, branch: string): Promise<StartedContainer> {
    // The lost attachment's bridge and proxy go with it (the new one starts its own).
    void this.attached.get(agent)?.then(closeAttached, () => undefined);
    const p = this.attach(agent, branch);
    this.attached.set(agent, p);
    p.catch(() => { if (this.attached.get(agent) === p) this.attached.delete(agent); });
    return p.then((a) => a.info);
  }

  private async attach(agent: string, branch: string): Promise<Attached> {
    let host: string | undefined;
    const say = (line: string) => this.opts.progress?.(agent, line, host);
    say('placing the container…');
    const hosts = await this.hosts();
    const loads = await measureLoads(hosts, (u) => this.engine(u));
    // A container of this agent already on a reachable engine is reattached, wherever it is.
    for (const l of loads) {
      if (l.running === undefined) continue;
      if ((await listContainers(await this.engine(l.url), this.team, agent)).length) { host = l.url; break; }
    }
    host ??= leastBusy(loads);
    if (!host) throw new Error(`no container engine answered: ${loads.map((l) => `${l.url}: ${l.error}`).join('; ')}`);
    const engine = await this.engine(host);
    const settings = this.opts.settings();
    say(`checking the image on ${host}…`);
    const src = await resolveImageSource(this.opts.root, settings.image);
    if ('refused' in src) throw new Error(src.refused);
    const image = await ensureImage(engine, src, say);
    say(`image ${image.made === 'present' ? 'cached' : image.made}: ${image.ref}`);
    say('creating the container…');
    const { container, created } = await ensureContainer(engine, { team: this.team, agent, branch, workspace: this.opts.root, image: image.ref, settings });
    await ensureHostBranch(this.opts.root, branch);
    const gate = settings.network === 'none' ? this.opts.network?.(agent) : undefined;
    // Pointed at the proxy whenever there is one to reach: without its bridge, a refused connection.
    const loop = await CommandLoop.start(container, containerCommandEnv(gate ? proxyVariables() : {}));
    let net: Attached['net'];
    if (gate) {
      say('starting the network bridge…');
      const architecture = String((await engine.getImage(image.ref).inspect()).Architecture ?? 'unknown');
      net = { proxy: new NetworkProxy(gate), bridge: null, architecture };
      const why = await this.bridgeUp(container, loop, net);
      if (why) say(`no network: ${why}`);
    }
    say(created ? 'cloning the branch…' : 'reattached');
    const clone = await cloneIn(container, loop, this.opts.root, branch, agent);
    const network = settings.network === 'bridge' ? 'bridge' : net?.bridge ? 'proxy' : 'none';
    return { info: { agent, host: host!, id: container.id, created, clone, image: image.ref, network }, branch, engine, loop, ...(net ? { net } : {}) };
  }

  /** Starts `net`'s bridge in `container`; null, or why there is none (the container then has no network). */
  private async bridgeUp(container: Docker.Container, loop: CommandLoop, net: NonNullable<Attached['net']>): Promise<string | null> {
    const b = await startNetBridge(container, loop, net.architecture, (conn) => net.proxy.accept(conn), this.opts.bridgeDir)
      .catch((e: Error) => ({ unavailable: `the network bridge did not start: ${e.message}` }));
    // Failed: no bridge from now on (not tried again before every command, each a wait).
    net.bridge = 'unavailable' in b ? null : b;
    return 'unavailable' in b ? b.unavailable : null;
  }

  /** Runs `command` in the agent's container. A lost engine is an error result, not a throw. */
  async exec(agent: string, command: string, opts: ContainerExecOptions): Promise<ShellResult> {
    const fail = (error: string): ShellResult => ({ exitCode: null, signal: null, output: '', truncated: false, timedOut: false, timeoutMs: opts.timeoutMs, aborted: false, durationMs: 0, error });
    let a: Attached;
    try {
      a = await this.current(agent);
    } catch (e) {
      return fail(`the container of ${agent} is not reachable: ${(e as Error).message}`);
    }
    // A bridge that ended (its program killed in the container, its stream lost) is started again.
    if (a.net?.bridge && !(await a.net.bridge.running())) {
      const why = await this.bridgeUp(a.engine.getContainer(a.info.id), a.loop, a.net);
      if (why) this.opts.progress?.(agent, `no network: ${why}`);
    }
    const cwd = posix.join(WORKDIR, opts.cwd ?? '.');
    const r = await a.loop.run(command, { cwd, timeoutMs: opts.timeoutMs, maxOutputBytes: opts.maxOutputBytes, ...(opts.signal ? { signal: opts.signal } : {}) });
    if (!r.error || a.loop.alive) return r;
    // The connection went while the command ran: say whether the engine is gone or only the
    // stream (the command may or may not have finished, so it is not run again).
    const engineGone = await pingEngine(a.engine, a.info.host).then(() => null, (e: Error) => e.message);
    return { ...r, error: engineGone
      ? `the container of ${agent} is not reachable: ${engineGone}`
      : `the connection to the container of ${agent} (engine ${a.info.host}) ended while the command ran (${r.error}); its next command reattaches` };
  }

  /** Writes a file in the agent's container (its write_file and edit_file: container-fs.ts). */
  async putFile(agent: string, abs: string, data: Buffer): Promise<{ created: boolean }> {
    const a = await this.current(agent);
    return putFile(a.engine.getContainer(a.info.id), a.loop, abs, data);
  }

  /** Fetches the agent's branch from its container onto the host's `team/<agent>`. */
  async bringBack(agent: string): Promise<BroughtBack> {
    const a = await this.current(agent);
    return bringBack(a.engine.getContainer(a.info.id), a.loop, this.opts.root, a.branch);
  }

  /** Stops the agent's container (teammate shut down); its clone stays for a restart. */
  async stop(agent: string): Promise<boolean> {
    const a = await this.detach(agent);
    if (a) return stopContainer(a.engine, this.team, agent);
    return this.onEveryHost((e) => stopContainer(e, this.team, agent));
  }

  /** Removes the agent's container (teammate removed). */
  async remove(agent: string): Promise<boolean> {
    await this.detach(agent);
    return this.onEveryHost((e) => removeContainer(e, this.team, agent));
  }

  /** This team's containers on every engine, and the engines that did not answer. */
  async list(): Promise<{ containers: ContainerListing[]; unreachable: { host: string; error: string }[] }> {
    const containers: ContainerListing[] = [];
    const unreachable: { host: string; error: string }[] = [];
    for (const host of await this.hosts()) {
      try {
        const rows = await listContainers(await this.engine(host), this.team);
        containers.push(...rows.map((r) => ({ ...r, host })));
      } catch (e) {
        unreachable.push({ host, error: (e as Error).message });
      }
    }
    return { containers, unreachable };
  }

  /** Removes the containers of this team's agents for which `alive` is false; returns them. */
  async prune(alive: (agent: string) => boolean): Promise<ContainerListing[]> {
    const gone = (await this.list()).containers.filter((r) => !alive(r.agent));
    for (const r of gone) {
      await this.detach(r.agent);
      await removeContainer(await this.engine(r.host), this.team, r.agent);
    }
    return gone;
  }

  /** Closes the command loops; the containers keep running, to be reattached. */
  async dispose(): Promise<void> {
    const all = [...this.attached.values()];
    this.attached.clear();
    await Promise.all(all.map((p) => p.then(closeAttached, () => undefined)));
  }

  /** The agent's attachment with a live loop: reattached once when the loop was lost. */
  private async current(agent: string): Promise<Attached> {
    const hit = this.attached.get(agent);
    if (!hit) throw new Error(`${agent} has no container (not started)`);
    const a = await hit;
    if (a.loop.alive) return a;
    await pingEngine(a.engine, a.info.host);
    await this.restart(agent, a.branch);
    return this.attached.get(agent)!;
  }

  private async detach(agent: string): Promise<Attached | undefined> {
    const hit = this.attached.get(agent);
    this.attached.delete(agent);
    const a = await hit?.catch(() => undefined);
    if (a) await closeAttached(a);
    return a;
  }

  private async onEveryHost(fn: (e: Engine) => Promise<boolean>): Promise<boolean> {
    let any = false;
    for (const host of await this.hosts()) {
      const e = await this.engine(host).catch(() => undefined);
      if (e && (await fn(e).catch(() => false))) any = true;
    }
    return any;
  }
}

/** Ends an attachment's command loop, bridge and proxy (the container goes on). */
async function closeAttached(a: Attached): Promise<void> {
  a.loop.close();
  a.net?.bridge?.close();
  await a.net?.proxy.close();
}
