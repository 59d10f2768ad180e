// How every `bash` command and background job of a runner's agents is started
// (docs/security.md): in the sandbox when the mode and the machine allow, else as before —
// refused under `required`, with one notice under `auto`. Owns each agent's private /tmp and
// network proxy, the hosts allowed this session, and the read-only guards it mounts.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, realpath, rm, rmdir, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SandboxMode, SandboxSettings } from '../../shared/sandbox-schemas';
import { withoutSecrets } from '../exec/shell';
import { withGitConfig } from '../worktree/git';
import type { RuleSource } from '../permissions/rules';
import { PROXY_SOCKET_NAME, proxyEnv, sandboxedArgs, unsandboxedArgs } from './bwrap';
import { PortForwarder } from './port-forward';
import { detectEngine, type EngineStatus } from './engine';
import { NetHolder } from './net-holder';
import { quiet, release as releaseGuards, take, unchangedSince, type Held } from './covers';
import { fsPolicy, pinsFor, type FsPolicy } from './fs-policy';
import { DISABLED_NAME, neutraliseNestedRepos } from './nested-repos';
import { AfterRunChecks } from './after-run';
import { AFTER_RUN, AGENT_GIT_CONFIG } from './policy';
import { canonicalHost, domainMatches, isLoopback, shownHost } from './hosts';
import { NetworkProxy } from './proxy';
import { GitExposure } from './git-exposed';
import { hiddenByReadRules } from './read-deny';
import { hostSockets, socketCovers } from './host-sockets';

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

/**
 * Network questions one agent may have waiting at once: a command reaching many hosts (a
 * crawler, or a model told to wear the user down) gets the rest denied unasked, not a pile of
 * questions to click through (docs/security.md, "network").
 */
const MAX_OPEN_QUESTIONS = 3;
/** Denials without a question said per agent in a session. */
const MAX_DENIAL_NOTICES = 5;

/** Short, private (0700) folder for sockets: a socket's path may not pass 107 bytes. */
const SOCKETS_BASE = `/tmp/agent-teams-${process.getuid?.() ?? 'u'}`;

/** Removes what is in `dir` (not `dir` itself, which is bound as a command's /tmp). */
async function emptyDir(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.map((n) => rm(join(dir, n), { recursive: true, force: true }).catch(() => undefined)));
}

/**
 * The policy for a command, its guards counted in use (covers.ts): computed again when a
 * guard of another command was removed meanwhile, since the policy may have seen it as an
 * existing path of the folder.
 */
async function guardedPolicy(root: string, cwd: string, gitWritable: boolean): Promise<{ fs: FsPolicy; held: Held }> {
  for (;;) {
    const mark = await quiet();
    const fs = await fsPolicy(root, cwd, { gitWritable });
    if (unchangedSince(mark)) return { fs, held: take(fs) };
  }
}

export class CommandSandbox {
  private readonly boxes = new Map<string, AgentBox>();
  /** Hosts answered this session (`host` or `host:port` for loopback): asked once each. */
  private readonly answered = new Map<string, Promise<boolean>>();
  /** Unguardable configured paths (fs-policy.ts) already said. */
  private readonly saidUnguardable = new Set<string>();
  /** Guards being taken down after commands that ended (launch's release). */
  private readonly releasing = new Set<Promise<void>>();
  /** Per agent: its network questions waiting now, and the denials said without a question. */
  private readonly unasked = new Map<string, { open: number; said: number }>();
  private readonly stop = new AbortController();
  private noticed = false;
  /** Checks after commands (afterRun), one at a time per checkout. */
  private readonly checks = new AfterRunChecks((checkout, agents) => this.afterRun(agents, checkout));
  /** Read deny rules on files git tracks: said once (git-exposed.ts). */
  private readonly gitExposure = new GitExposure();
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
    // After dispose() nothing may make a box: its proxy would listen with nobody to close it.
    if (this.stop.signal.aborted) return { refused: 'the session has ended' };
    const box = await this.box(how.box ?? agent);
    box.who = agent;
    await box.proxy;
    if (how.box) await emptyDir(box.tmpDir);
    const sockets = hostSockets();
    const guarding = guardedPolicy(this.opts.root, cwd, !how.gitReadOnly);
    const [{ fs, held }, hidden, net] = await Promise.all([
      guarding, hiddenByReadRules(this.opts.root, this.opts.rules()), how.background ? this.jobNet(box, st.engine) : this.net(box, st.engine),
    ]).catch(async (e: unknown) => {
      await guarding.then((g) => releaseGuards(g.held.paths), () => undefined);
      throw e;
    });
    if (hidden.capped) this.opts.notice('warning', `The folder has over ${hidden.files.length} entries: Read deny rules hide only what was found before the walk stopped.`, agent);
    void this.gitExposure.check(this.opts.root, [...hidden.files, ...hidden.dirs], (m) => this.opts.notice('warning', m));
    for (const u of fs.unguardable.filter((x) => !this.saidUnguardable.has(x))) {
      this.saidUnguardable.add(u);
      this.opts.notice('warning', `${u} is a control path or one your git settings name, reached through a link inside the folder agents write: a command can replace the link, so the sandbox cannot keep what an agent writes there from being obeyed (by your git, VS Code, the product). Make it a real folder or file, or point the setting outside the workspace (docs/security.md, "The policy table").`);
    }
    for (const k of ['NO_PROXY', 'no_proxy']) delete env[k];
    fs.readOnly.push(...(await held.covers));
    fs.coverFiles = [];
    // A hidden file's folders are pinned too: renamed by one command, the next would read it under the new name.
    if (hidden.files.length || hidden.dirs.length) fs.pinned = await pinsFor(fs, [...fs.readOnly, ...fs.guarded, ...hidden.files, ...hidden.dirs]);
    // Off the command's way back, as the check after it: its result does not wait for the
    // guards' mount points to go (the next command's policy does, covers.ts quiet()); settled()
    // and dispose() wait for both.
    const release = async () => {
      const done = releaseGuards(held.paths).then(() => {
        if (AFTER_RUN.neutraliseNestedRepos && fs.gitDir) this.checks.request(agent, fs.checkout);
      });
      this.releasing.add(done);
      void done.finally(() => this.releasing.delete(done));
    };
    const forwarder = how.background && net ? new PortForwarder({ nsenter: st.engine.nsenter!, socat: st.engine.socat! }, net, (port, ok) => this.opts.notice('info', ok
      ? `${agent}'s background job listens on port ${port}: reach it at localhost:${port} on this machine.`
      : `${agent}'s background job listens on port ${port}, which is taken on this machine: not forwarded.`, agent)) : undefined;
    const joinNet = net?.joinArgs() ?? null;
    const bound = [...fs.readable, ...fs.writable, ...fs.readOnly, ...fs.ownWritable, ...fs.ownReadOnly, ...fs.coverFiles, ...fs.guarded];
    const unreachable = socketCovers(await sockets, bound, await realpath(homedir()).catch(() => homedir()), [...hidden.files, ...hidden.dirs]);
    const args = sandboxedArgs({ fs, hidden, sockets: unreachable, tmpDir: box.tmpDir, emptyFile: join(this.base, 'empty'), socat: st.engine.socat!, cwd, socketDir: box.socketDir, joinedNet: !!joinNet }, command);
    return {
      // nsenter joins the agent's network namespace, then becomes bwrap (same process).
      file: joinNet ? st.engine.nsenter! : st.engine.bwrap!, args: joinNet ? [...joinNet, st.engine.bwrap!, ...args] : args,
      env: { ...env, ...proxyEnv(), ...withGitConfig(env, AGENT_GIT_CONFIG) }, sandboxed: true,
      started: () => forwarder?.watch(),
      release: async () => {
        await forwarder?.stop();
        if (how.background) net?.close();
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

  /**
   * Whether `host:port` may be reached: allowed by setting, answered before, or asked now
   * (once). This machine in any spelling is `localhost:<port>`, asked per port. Nobody to ask
   * (headless), or MAX_OPEN_QUESTIONS of the agent's waiting: denied, and said in a notice
   * naming the agent and the host (MAX_DENIAL_NOTICES at most).
   */
  allowHost(agent: string, host: string, port: number): Promise<boolean> {
    const h = canonicalHost(host);
    if (!h) return Promise.resolve(false);
    if (this.opts.settings().allowedDomains.some((d) => domainMatches(d, h, port))) return Promise.resolve(true);
    const key = isLoopback(h) ? `localhost:${port}` : h;
    const known = this.answered.get(key);
    if (known) return known;
    const shown = shownHost(h, port);
    const ask = this.opts.askNetwork;
    const unasked = this.unasked.get(agent) ?? { open: 0, said: 0 };
    this.unasked.set(agent, unasked);
    // Nobody to ask, or the agent has MAX_OPEN_QUESTIONS waiting: denied unasked. Said in a
    // notice up to MAX_DENIAL_NOTICES times per agent (a loop over many hosts is one line, not
    // thousands); a host denied because questions were waiting is asked when it comes back.
    if (!ask || unasked.open >= MAX_OPEN_QUESTIONS) {
      const why = ask ? `not asked: ${MAX_OPEN_QUESTIONS} questions about hosts already wait for you` : 'nobody to ask';
      if (++unasked.said <= MAX_DENIAL_NOTICES) {
        const more = unasked.said === MAX_DENIAL_NOTICES ? ` Further hosts ${agent}'s commands are denied without a question are not said.` : '';
        this.opts.notice('warning', `${agent}'s command wanted to reach ${shown}: denied, ${why}. To allow it, add it to agentTeams.sandbox.allowedDomains (--allow-domain).${more}`, agent);
      }
      const denied = Promise.resolve(false);
      if (!ask) this.answered.set(key, denied);
      return denied;
    }
    unasked.open++;
    const answer = ask(agent, shown, this.stop.signal).then((d) => d !== 'deny', () => false).finally(() => { unasked.open--; });
    this.answered.set(key, answer);
    return answer;
  }

  /**
   * After a command that could write the git folder: a repository it made inside its folder
   * loses its `.git` (nested-repos.ts) and the user is told. Never fails.
   */
  private async afterRun(agents: readonly string[], checkout: string): Promise<void> {
    const disabled = await neutraliseNestedRepos(checkout).catch(() => [] as string[]);
    if (disabled.length) {
      const who = agents.length > 1 ? `one of ${agents.join(', ')}` : agents[0]!;
      this.opts.notice('warning', `A command of ${who} made a git repository inside the folder (${disabled.join(', ')}): its .git was renamed to ${DISABLED_NAME} so that no git you run obeys its config or hooks. Rename it back only if you trust it (docs/security.md, "Nested repositories").`, agents.length === 1 ? agents[0] : undefined);
    }
  }

  /** Resolves once the commands that have ended are cleaned up after and checked. */
  async settled(): Promise<void> {
    while (this.releasing.size) await Promise.all([...this.releasing]);
    await this.checks.settled();
  }

  /** Stops the proxies; commands still running lose the network. */
  async dispose(): Promise<void> {
    // No box is made from here on; then what ended is cleaned up after and checked.
    this.stop.abort();
    await this.settled();
    const boxes = [...this.boxes.values()];
    this.boxes.clear();
    await Promise.all(boxes.map(async (b) => {
      (await b.net?.catch(() => null))?.close();
      await (await b.proxy.catch(() => null))?.close();
      // Nothing the host made outlives it: each box's /tmp and socket folder (docs/headless.md).
      await Promise.all([b.tmpDir, b.socketDir].map((d) => rm(d, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined)));
    }));
    // The shared folders go once no other session on this folder has a box in them.
    if ((await readdir(this.base).catch(() => [])).every((n) => n === 'empty')) await rm(this.base, { recursive: true, force: true }).catch(() => undefined);
    await rmdir(dirname(this.base)).catch(() => undefined);
  }

  /** A background job's own network namespace (its ports are forwarded from it, port-forward.ts); null: the job makes its own, unforwarded. */
  private async jobNet(box: AgentBox, engine: EngineStatus): Promise<NetHolder | null> {
    if (!engine.nsenter || this.stop.signal.aborted) return null;
    return NetHolder.start(engine.bwrap!, engine.socat!, join(box.socketDir, PROXY_SOCKET_NAME)).catch(() => null);
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
    if (this.stop.signal.aborted) return Promise.reject(new Error('the session has ended'));
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

