// How every `bash` command and background job of a runner's agents is started
// (docs/security.md): in the sandbox when the mode and the machine allow, else as before —
// refused under `required`, with one notice under `auto`. Owns each agent's private /tmp and
// network proxy, the hosts allowed this session, and the read-only guards it mounts.
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SandboxMode, SandboxSettings } from '../../shared/sandbox-schemas';
import { withoutSecrets } from '../exec/shell';
import type { RuleSource } from '../permissions/rules';
import { FORWARD_SCRIPT, forwardScript, PROXY_SOCKET_NAME, proxyEnv, sandboxedArgs, unsandboxedArgs } from './bwrap';
import { PortForwarder } from './port-forward';
import { detectEngine, type EngineStatus } from './engine';
import { NetHolder } from './net-holder';
import { fsPolicy } from './fs-policy';
import { domainMatches, isLoopback, NetworkProxy } from './proxy';
import { GitExposure } from './git-exposed';
import { hiddenByReadRules } from './read-deny';

/** A host's answer to "may commands reach this host?" ("always" adds it to allowedDomains). */
export type NetworkDecision = 'allow' | 'always' | 'deny';

export interface SandboxOptions {
  root: string;
  settings(): SandboxSettings;
  /** The permission rules (Read deny rules hide files). */
  rules(): RuleSource | undefined;
  /** Asks the user about a host no setting allows; absent: denied. */
  askNetwork?(agent: string, host: string, signal: AbortSignal): Promise<NetworkDecision>;
  notice(level: 'info' | 'warning', message: string, agent?: string): void;
  /** PATH the engine is looked for on (default the process's). */
  enginePath?: string;
}

export interface SandboxState {
  mode: SandboxMode;
  /** Commands run in the sandbox now. */
  active: boolean;
  engine: EngineStatus;
}

/** How to start one command; `release` once it has ended. */
export interface Launch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandboxed: boolean;
  release(): Promise<void>;
  started?(pid: number): void;
}

interface AgentBox {
  /** Whose command runs in it now (a shared box's network questions name them). */
  who: string;
  tmpDir: string;
  /** Short host path for the agent's sockets (bwrap.ts SOCKETS_INSIDE). */
  socketDir: string;
  proxy: Promise<NetworkProxy>;
  /** The agent's network namespace for its foreground commands (net-holder.ts); null: a bridge each. */
  net?: Promise<NetHolder | null>;
}

/** Short, private (0700) folder for sockets: a socket's path may not pass 107 bytes. */
const SOCKETS_BASE = `/tmp/agent-teams-${process.getuid?.() ?? 'u'}`;

/** Removes what is in `dir` (not `dir` itself, which is bound as a command's /tmp). */
async function emptyDir(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.map((n) => rm(join(dir, n), { recursive: true, force: true }).catch(() => undefined)));
}

/** Guard folders mounted by commands still running (this process): removed when the last ends. */
const guardsInUse = new Map<string, number>();

/**
 * The repository's own git folder never holds a `commondir` (only `.git/worktrees/<name>/`
 * do): one written there by a command would send host-side git to a config and hooks of its
 * choosing (`core.fsmonitor`). An absent file cannot be guarded (docs/security.md), so it is
 * removed when the command ends. True when there was one.
 */
async function dropCommondir(gitDir: string): Promise<boolean> {
  const p = join(gitDir, 'commondir');
  if (!(await lstat(p).then(() => true, () => false))) return false;
  await rm(p, { recursive: true, force: true });
  return true;
}

export class CommandSandbox {
  private readonly boxes = new Map<string, AgentBox>();
  /** Hosts answered this session (`host` or `host:port` for loopback): asked once each. */
  private readonly answered = new Map<string, Promise<boolean>>();
  private readonly stop = new AbortController();
  private noticed = false;
  /** Read deny rules on files git tracks: said once (git-exposed.ts). */
  private readonly gitExposure = new GitExposure();
  private jobs = 0;
  private readonly base: string;

  constructor(private readonly opts: SandboxOptions) {
    const id = createHash('sha256').update(opts.root).digest('hex').slice(0, 12);
    this.base = join(tmpdir(), `agent-teams-sandbox-${process.getuid?.() ?? 'u'}`, id);
  }

  async state(): Promise<SandboxState> {
    const { mode } = this.opts.settings();
    const engine = await detectEngine(this.opts.enginePath);
    return { mode, active: mode !== 'off' && engine.engine !== null, engine };
  }

  /** How to run `command` for `agent` in `cwd`, or why it may not run. */
  /** `how.background`: a job, whose loopback ports are forwarded to the host's (port-forward.ts); `how.gitReadOnly`: see fsPolicy. */
  /**
   * `how.box`: the command runs in that box (its /tmp and network namespace) instead of the
   * agent's own, its /tmp emptied first — the merge queue's tests, one at a time, apart from
   * the commands their teammates are running meanwhile (no port or /tmp shared with them).
   */
  async launch(agent: string, cwd: string, command: string, how: { unsandboxed?: boolean; background?: boolean; gitReadOnly?: boolean; box?: string } = {}): Promise<Launch | { refused: string }> {
    const st = await this.state();
    if (st.mode === 'required' && !st.active) {
      return { refused: `the sandbox is required (agentTeams.sandbox is "required") but ${st.engine.reason}` };
    }
    if (st.mode === 'auto' && !st.active && !this.noticed) {
      this.noticed = true;
      this.opts.notice('warning', `Commands run without a sandbox: ${st.engine.reason}. Until then every command is judged by the permission rules alone (docs/security.md).`);
    }
    const env = withoutSecrets(process.env);
    const none = async () => undefined;
    if (!st.active || how.unsandboxed) {
      // Even outside the sandbox a command gets a pid namespace of its own where bwrap works:
      // the host's processes (and their environments, the key's among them) are out of sight.
      if (st.engine.bwrap && st.engine.pidNamespace) {
        return { file: st.engine.bwrap, args: unsandboxedArgs(cwd, command), env, sandboxed: false, release: none };
      }
      return { file: '/bin/bash', args: ['-o', 'pipefail', '-c', command], env, sandboxed: false, release: none };
    }
    const box = await this.box(how.box ?? agent);
    box.who = agent;
    await box.proxy;
    if (how.box) await emptyDir(box.tmpDir);
    const [fs, hidden, net] = await Promise.all([
      fsPolicy(this.opts.root, cwd, { gitWritable: !how.gitReadOnly }), hiddenByReadRules(this.opts.root, this.opts.rules()), how.background ? null : this.net(box, st.engine),
    ]);
    if (hidden.capped) this.opts.notice('warning', `The folder has over ${hidden.files.length} entries: Read deny rules hide only what was found before the walk stopped.`, agent);
    void this.gitExposure.check(this.opts.root, [...hidden.files, ...hidden.dirs], (m) => this.opts.notice('warning', m));
    for (const k of ['NO_PROXY', 'no_proxy']) delete env[k];
    for (const g of fs.guarded) guardsInUse.set(g, (guardsInUse.get(g) ?? 0) + 1);
    const release = async () => {
      if (fs.gitDir && (await dropCommondir(fs.gitDir))) {
        this.opts.notice('warning', `A command of ${agent} wrote ${join(fs.gitDir, 'commondir')}, which would point git at another folder's config and hooks: removed.`, agent);
      }
      const unused = fs.guarded.filter((g) => {
        const n = (guardsInUse.get(g) ?? 1) - 1;
        if (n > 0) guardsInUse.set(g, n);
        else guardsInUse.delete(g);
        return n <= 0;
      });
      // Only while empty: the mount points bwrap made.
      await Promise.all(unused.map((g) => rmdir(g).catch(() => undefined)));
    };
    const forwardSocket = how.background ? `forward-${++this.jobs}/in.sock` : undefined;
    if (forwardSocket) await mkdir(join(box.socketDir, dirname(forwardSocket)), { recursive: true, mode: 0o700 });
    const forwarder = forwardSocket ? new PortForwarder(join(box.socketDir, forwardSocket), (port, ok) => this.opts.notice('info', ok
      ? `${agent}'s background job listens on port ${port}: reach it at localhost:${port} on this machine.`
      : `${agent}'s background job listens on port ${port}, which is taken on this machine: not forwarded.`, agent)) : undefined;
    const joinNet = net?.joinArgs() ?? null;
    const args = sandboxedArgs({ fs, hidden, tmpDir: box.tmpDir, emptyFile: join(this.base, 'empty'), socat: st.engine.socat!, cwd, forwardSocket, socketDir: box.socketDir, joinedNet: !!joinNet }, command);
    return {
      // nsenter joins the agent's network namespace, then becomes bwrap (same process).
      file: joinNet ? st.engine.nsenter! : st.engine.bwrap!, args: joinNet ? [...joinNet, st.engine.bwrap!, ...args] : args,
      env: { ...env, ...proxyEnv() }, sandboxed: true,
      started: (pid) => forwarder?.watch(pid),
      release: async () => {
        await forwarder?.stop();
        if (forwardSocket) await rm(join(box.socketDir, dirname(forwardSocket)), { recursive: true, force: true });
        await release();
      },
    };
  }

  /**
   * Makes `box`'s proxy and network namespace ready (an agent's, or a `how.box` of launch)
   * before its next command, so that command does not wait for them (the merge queue calls it
   * while it merges). Never fails.
   */
  async prepare(box: string): Promise<void> {
    const st = await this.state().catch(() => null);
    if (!st?.active || this.stop.signal.aborted) return;
    const b = await this.box(box);
    await b.proxy.catch(() => undefined);
    await this.net(b, st.engine).catch(() => undefined);
  }

  /** Whether `host:port` may be reached: allowed by setting, answered before, or asked now (once). */
  allowHost(agent: string, host: string, port: number): Promise<boolean> {
    if (this.opts.settings().allowedDomains.some((d) => domainMatches(d, host, port))) return Promise.resolve(true);
    const key = isLoopback(host) ? `localhost:${port}` : host;
    let answer = this.answered.get(key);
    if (!answer) {
      const shown = isLoopback(host) ? `${host}:${port}` : host;
      answer = (this.opts.askNetwork?.(agent, shown, this.stop.signal) ?? Promise.resolve<NetworkDecision>('deny'))
        .then((d) => d !== 'deny', () => false);
      this.answered.set(key, answer);
    }
    return answer;
  }

  /** Stops the proxies; commands still running lose the network. */
  async dispose(): Promise<void> {
    this.stop.abort();
    const boxes = [...this.boxes.values()];
    this.boxes.clear();
    await Promise.all(boxes.map(async (b) => {
      (await b.net?.catch(() => null))?.close();
      await (await b.proxy.catch(() => null))?.close();
    }));
  }

  /** The agent's network namespace, started on its first command and again if it ended. */
  private async net(box: AgentBox, engine: EngineStatus): Promise<NetHolder | null> {
    if (!engine.nsenter || this.stop.signal.aborted) return null;
    const current = box.net;
    const had = current && (await current);
    if (current && (had === null || had?.alive)) return had ?? null;
    if (box.net !== current) return this.net(box, engine); // restarted meanwhile by another command
    const socket = join(box.socketDir, PROXY_SOCKET_NAME);
    box.net = NetHolder.start(engine.bwrap!, engine.socat!, socket).catch(() => null);
    return box.net;
  }

  private box(agent: string): Promise<AgentBox> {
    const hit = this.boxes.get(agent);
    // A box is named by its agent (or a launch's `how.box`); `who` is whose command runs in it.
    if (hit) return Promise.resolve(hit);
    const agentId = createHash('sha256').update(agent).digest('hex').slice(0, 12);
    const tmpDir = join(this.base, agentId);
    const socketDir = join(SOCKETS_BASE, `${basename(this.base)}-${agentId}`);
    const proxy = (async () => {
      await mkdir(tmpDir, { recursive: true, mode: 0o700 });
      await mkdir(SOCKETS_BASE, { recursive: true, mode: 0o700 });
      await mkdir(socketDir, { recursive: true, mode: 0o700 });
      const empty = join(this.base, 'empty');
      await writeFile(empty, '', { flag: 'a' });
      await chmod(empty, 0o444);
      await writeFile(join(socketDir, FORWARD_SCRIPT), forwardScript((await this.state()).engine.socat ?? 'socat'));
      const sock = join(socketDir, PROXY_SOCKET_NAME);
      await rm(sock, { force: true });
      const p = new NetworkProxy((host, port) => this.allowHost(box.who, host, port));
      await p.listen(sock);
      return p;
    })();
    const box: AgentBox = { who: agent, tmpDir, socketDir, proxy };
    this.boxes.set(agent, box);
    proxy.catch(() => this.boxes.delete(agent));
    return Promise.resolve(box);
  }
}
