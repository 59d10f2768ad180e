// The teammates of one runner that run in containers (docs/containers.md), as the runtime
// sees them: which they are, the checks made at spawn (an image, an engine that answers), the
// container started before the teammate's first model call (progress shown as its activity) and
// found again by its labels after a restart, its commands, background jobs and file tools there,
// its work brought back onto `team/<name>` at the end of each turn and before queue_merge, the
// container stopped at shutdown and removed with the teammate. The engine's client (dockerode,
// ssh2) is loaded on first use: a team without container teammates never loads it.
import type { ContainerFile } from '../../shared/container-schemas';
import type { AgentFs } from '../exec/agent-fs';
import type { ShellResult } from '../exec/shell';
import type { HostGate } from '../sandbox/proxy';
import { readTeamSettings } from '../team/team-settings';
import { ensureHostBranch, type BroughtBack } from './code';
import type { ContainerBackend, ContainerExecOptions, StartedContainer } from './backend';
import { ContainerFs } from './container-fs';
import { stepOf, type ContainerState } from './container-state';
import { NO_IMAGE, resolveImageSource } from './image';
import { resolveContainerSettings, type ContainerSettings } from './settings';

/** What the tools reach (ToolHost.containers): a teammate's commands in its container, its branch brought back. */
export interface TeammateContainers {
  /** Whether `agent` runs in a container (its commands never run on this machine). */
  has(agent: string): boolean;
  exec(agent: string, command: string, opts: ContainerExecOptions): Promise<ShellResult>;
  /** Its branch from its container onto the host's `team/<agent>` (null: it has no container). */
  bringBack(agent: string): Promise<BroughtBack | null>;
}

export interface SeatsDeps {
  root: string;
  teamName(): Promise<string>;
  /** agentTeams.container.* / --container-host: over the file's fields. */
  hostSettings(): ContainerFile | undefined;
  /** A line of a container's start (image pull or build, cloning), for the agent's activity. */
  progress(agent: string, line: string): void;
  /** An error on that teammate (its container cannot start). */
  notice(agent: string, message: string): void;
  /** Its container's state changed (the Team tree's row); null: removed. */
  changed?(agent: string, state: ContainerState | null): void;
  /** The host policy for `agent`'s commands (the sandbox's): with it, network `none` reaches the proxy (docs/containers.md). */
  network?(agent: string): HostGate;
}

/** How long a file tool's command in the container may take. */
const FILE_COMMAND_MS = 120_000;

export class ContainerSeats implements TeammateContainers {
  private readonly seated = new Set<string>();
  private backend: Promise<ContainerBackend> | null = null;
  private current: ContainerSettings = resolveContainerSettings();
  private readonly states = new Map<string, ContainerState>();

  constructor(private readonly d: SeatsDeps) {}

  /** Where `agent`'s container stands, as this host knows it (undefined: not started here). */
  state(agent: string): ContainerState | undefined {
    return this.states.get(agent);
  }

  private set(agent: string, next: ContainerState | null): void {
    const was = this.states.get(agent);
    if (next) this.states.set(agent, next);
    else this.states.delete(agent);
    if (JSON.stringify(was) !== JSON.stringify(next ?? undefined)) this.d.changed?.(agent, next);
  }

  /** A progress line of a start: passed on as activity, and a step of the row when it is one. */
  private progress(agent: string, line: string, host?: string): void {
    this.d.progress(agent, line);
    // A container that starts without its way to the proxy is said, not only shown as activity.
    if (line.startsWith('no network: ')) this.d.notice(agent, `${agent}'s container has ${line} (docs/containers.md, "Network")`);
    const step = stepOf(line);
    if (step) this.set(agent, { state: 'starting', detail: step, ...(host ? { host } : {}) });
  }

  has(agent: string): boolean {
    return this.seated.has(agent);
  }

  /** `agent` runs in a container from now on (spawned so, or resumed from the roster). */
  seat(agent: string): void {
    this.seated.add(agent);
  }

  /** The settings now: `.team/settings.json`'s "container", the host's settings over it. */
  private async refresh(): Promise<ContainerSettings> {
    const file = (await readTeamSettings(this.d.root)).sections.container ?? {};
    const host = Object.fromEntries(Object.entries(this.d.hostSettings() ?? {}).filter(([, v]) => v !== undefined)) as ContainerFile;
    // A host the user named here replaces the file's list, unless it names a list too.
    this.current = resolveContainerSettings({ ...file, ...host, ...(host.host && !host.hosts ? { hosts: [] } : {}) });
    return this.current;
  }

  private engine(): Promise<ContainerBackend> {
    this.backend ??= (async () => {
      const { ContainerBackend: Backend } = require('./backend') as typeof import('./backend');
      return new Backend({
        root: this.d.root, teamName: await this.d.teamName(), settings: () => this.current, progress: (a, l, h) => this.progress(a, l, h),
        ...(this.d.network ? { network: this.d.network } : {}),
      });
    })();
    return this.backend;
  }

  /**
   * Before a container spawn writes anything: an image to run (the setting or the devcontainer)
   * and an engine that answers, else the reason, which refuses the spawn.
   */
  async check(): Promise<void> {
    const s = await this.refresh();
    const src = await resolveImageSource(this.d.root, s.image);
    if ('refused' in src) throw new Error(src.refused || NO_IMAGE);
    const b = await this.engine();
    const hosts = await b.hosts();
    const { unreachable } = await b.list();
    if (unreachable.length === hosts.length) throw new Error(`no container engine answered: ${unreachable.map((u) => `${u.host}: ${u.error}`).join('; ')}`);
  }

  /**
   * A container spawn of `agent`: checked (check()), its branch made on the host at the checked-out
   * commit when it has none, and the agent seated. Returns its branch.
   */
  async open(agent: string): Promise<string> {
    await this.check();
    const branch = `team/${agent}`;
    await ensureHostBranch(this.d.root, branch);
    this.seat(agent);
    return branch;
  }

  /**
   * Before its first model call (also after a restart): its container started or reattached.
   * What the teammate is told of it; a container that cannot start is said (and an error notice).
   */
  async prepare(agent: string): Promise<string> {
    try {
      const c = await this.start(agent);
      return `Your container is ${c.created ? 'started' : 'reattached'} (engine ${c.host}); your clone of branch team/${agent} is at /workspace.`;
    } catch (e) {
      const message = `the container of ${agent} could not be started: ${(e as Error).message}`;
      this.d.notice(agent, message);
      return `Note: ${message}. Your commands and file tools fail until it can be; tell the lead.`;
    }
  }

  /** The agent's container, running with its clone (created, or found again by its labels). */
  async start(agent: string): Promise<StartedContainer> {
    this.seat(agent);
    await this.refresh();
    return this.up(agent);
  }

  /** The backend's start (a no-op when attached), its outcome kept as the agent's state. */
  private async up(agent: string): Promise<StartedContainer> {
    const b = await this.engine();
    const t0 = Date.now();
    try {
      const c = await b.start(agent);
      if (this.states.get(agent)?.state !== 'running') this.set(agent, { state: 'running', host: c.host, startMs: Date.now() - t0 });
      return c;
    } catch (e) {
      const host = this.states.get(agent)?.host;
      this.set(agent, { state: 'unreachable', detail: (e as Error).message, ...(host ? { host } : {}) });
      throw e;
    }
  }

  /** A command in the agent's container; a container that cannot be reached is an error result, never a run here. */
  async exec(agent: string, command: string, opts: ContainerExecOptions): Promise<ShellResult> {
    const b = await this.engine();
    try {
      await this.up(agent);
    } catch (e) {
      return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, timeoutMs: opts.timeoutMs, aborted: false, durationMs: 0, error: `the container of ${agent} is not reachable: ${(e as Error).message}` };
    }
    return b.exec(agent, command, opts);
  }

  /** The agent's file tools on its clone in its container. */
  fs(agent: string): AgentFs {
    return new ContainerFs({
      run: (command, maxOutputBytes) => this.exec(agent, command, { timeoutMs: FILE_COMMAND_MS, maxOutputBytes }),
      put: async (abs, data) => {
        await this.up(agent);
        return (await this.engine()).putFile(agent, abs, data);
      },
    });
  }

  async bringBack(agent: string): Promise<BroughtBack | null> {
    if (!this.has(agent)) return null;
    await this.up(agent);
    return (await this.engine()).bringBack(agent);
  }

  /** Shutdown: its work brought back first (when the engine answers), then the container stopped. */
  async stop(agent: string): Promise<string | null> {
    if (!this.has(agent)) return null;
    const b = await this.engine();
    const back = await this.bringBack(agent).then(() => null, (e: Error) => e.message);
    this.seated.delete(agent);
    const host = this.states.get(agent)?.host;
    await b.stop(agent);
    this.set(agent, { state: 'stopped', ...(host ? { host } : {}) });
    return back;
  }

  /** The teammate is removed: so is its container (its branch stays on the host). */
  async remove(agent: string): Promise<boolean> {
    this.seated.delete(agent);
    this.set(agent, null);
    return (await this.engine()).remove(agent);
  }

  /** Removes the team's containers of the agents `keep` says no to (teammates removed or shut down); their names. */
  async prune(keep: (agent: string) => boolean): Promise<string[]> {
    await this.refresh();
    const gone = await (await this.engine()).prune(keep);
    for (const c of gone) this.seated.delete(c.agent);
    return gone.map((c) => c.agent);
  }

  /** The host goes away: the loops close, the containers go on running, to be reattached. */
  async dispose(): Promise<void> {
    const b = await this.backend?.catch(() => null);
    await b?.dispose();
  }
}
