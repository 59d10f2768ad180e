// One network namespace per agent for its commands (docs/security.md "network"): a process
// kept alive for the session in a namespace of its own (loopback only), running the socat
// that bridges 127.0.0.1:PROXY_PORT there to the agent's proxy socket on the host. Each of
// the agent's foreground commands joins that namespace (`nsenter --net`, which then becomes
// bwrap) instead of getting a new one with a bridge of its own: starting socat and waiting
// until it listens cost more than the rest of the sandbox together (bench/README.md,
// sandbox.exec_ms). A background job gets a holder of its own (its ports are forwarded from
// that namespace, port-forward.ts): one the host can enter, since the holder's bwrap makes a
// single user namespace (a job's own bwrap, with `--dev`, makes a second one, which does not
// own the network namespace, so an unprivileged host could not enter it).
import { spawn, type ChildProcess } from 'node:child_process';
import { open, readFile, readlink, type FileHandle } from 'node:fs/promises';
import { PROXY_PORT } from './bwrap';

/** How long the bridge may take to listen before the agent's commands fall back to a bridge each. */
const READY_MS = 10_000;

/** A holder's namespaces, held open: `net`, and `user` when it is not the host's (entered first, as nsenter needs). */
export interface HeldNamespaces {
  net: FileHandle;
  user: FileHandle | null;
}

export class NetHolder {
  private exited = false;

  private constructor(private readonly child: ChildProcess, private readonly target: number, private readonly ids: { net: string; user: string }, private readonly ownUserNs: boolean) {
    child.once('exit', () => { this.exited = true; });
  }

  /**
   * Starts the namespace and its bridge to `proxySocket` (a host path); resolves once socat
   * listens inside, or null when it could not (the caller then gives each command its own).
   */
  static async start(bwrap: string, socat: string, proxySocket: string): Promise<NetHolder | null> {
    // `--dev-bind / /` and no `--dev`: nothing to hide from socat, and without a fresh /dev
    // bwrap makes no second user namespace, so the one that owns the network namespace is
    // the one `nsenter --user` enters (as an unprivileged user).
    const child = spawn(bwrap, ['--die-with-parent', '--unshare-net', '--dev-bind', '/', '/', '--',
      socat, '-d', '-d', `TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${proxySocket}`],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    const listening = await new Promise<boolean>((resolve) => {
      let text = '';
      const timer = setTimeout(() => resolve(false), READY_MS);
      const done = (ok: boolean) => { clearTimeout(timer); resolve(ok); };
      // socat says "N listening on …" (notice level, -d -d) right before each accept.
      child.stderr!.on('data', (b: Buffer) => { if (text.length < 4096 && /listening on/.test(text += b.toString())) done(true); });
      child.once('exit', () => done(false));
      child.once('error', () => done(false));
    });
    // Its log (a few lines per connection) is read and dropped for as long as it runs.
    child.stderr!.resume();
    const kill = () => { child.kill('SIGKILL'); return null; };
    if (!listening || child.pid === undefined) return kill();
    const pid = Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/)[0]);
    if (!pid) return kill();
    const ns = async (p: number | 'self', kind: string) => readlink(`/proc/${p}/ns/${kind}`).catch(() => null);
    const [hostNet, net, hostUser, user] = await Promise.all([ns('self', 'net'), ns(pid, 'net'), ns('self', 'user'), ns(pid, 'user')]);
    // Never join a namespace that is not a new one (a pid that is not the bridge's any more).
    if (!net || !hostNet || net === hostNet || !user || child.exitCode !== null) return kill();
    return new NetHolder(child, pid, { net, user }, user !== hostUser);
  }

  /** The `nsenter` arguments before bwrap's own, or null once the namespace is gone. */
  joinArgs(): string[] | null {
    if (this.exited) return null;
    // An unprivileged user may only join a namespace owned by the user namespace bwrap made;
    // root stays in its own (entering one's own user namespace is refused).
    const user = this.ownUserNs ? ['--user', '--preserve-credentials'] : [];
    return [`--target=${this.target}`, ...user, '--net', '--'];
  }

  /** The process inside the namespace (its /proc/<pid>/net shows the namespace's sockets). */
  get pid(): number {
    return this.target;
  }

  /**
   * The namespaces opened by descriptor (closed by the caller), or null once they are not the
   * ones this holder made (the process gone, its pid another's).
   */
  async namespaces(): Promise<HeldNamespaces | null> {
    if (this.exited) return null;
    const [net, user] = await Promise.all(['net', 'user'].map((k) => open(`/proc/${this.target}/ns/${k}`, 'r').catch(() => null)));
    const [netId, userId] = await Promise.all([net, user].map((h) => (h ? readlink(`/proc/self/fd/${h.fd}`).catch(() => null) : null)));
    if (!net || !user || netId !== this.ids.net || userId !== this.ids.user || this.exited) {
      await Promise.all([net?.close(), user?.close()].map((p) => p?.catch(() => undefined)));
      return null;
    }
    if (this.ownUserNs) return { net, user };
    await user.close().catch(() => undefined);
    return { net, user: null };
  }

  get alive(): boolean {
    return !this.exited;
  }

  close(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
