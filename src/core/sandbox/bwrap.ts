// The bubblewrap command line for one command (docs/security.md). Sandboxed: the whole
// filesystem read-only, the policy's folders writable, control files read-only again on
// top, files Read deny rules name replaced by an empty one, a private /tmp, the host's unix
// sockets covered (host-sockets.ts), a fresh /proc in a new pid namespace (no host process,
// its environment or command line, is visible), only fds 0-2 passed on, and a network
// namespace without a way out but the host's proxy (proxy.ts), reached through socat on
// 127.0.0.1:PROXY_PORT: the agent's or a job's (net-holder.ts), else its own. Unsandboxed (mode off, or approved as such): the
// whole filesystem and network as they are, but still a pid namespace of its own. Either
// way `--die-with-parent`, and the namespace ends when its first process does, so nothing
// a command starts (setsid, double forks, daemons) outlives it.
import type { FsPolicy } from './fs-policy';
import type { SocketCovers } from './host-sockets';
import { NETWORK, proxyVariables } from './policy';
import type { HiddenPaths } from './read-deny';

/** The proxy's port inside the sandbox's own network namespace (nothing else listens there). */
export const PROXY_PORT = NETWORK.proxyPort;
/**
 * Where the agent's socket folder (the proxy socket) is seen inside. On the host it is a short path under /tmp: a unix socket's path may not pass 107
 * bytes, and the system temp folder can be long (code-server's, macOS's).
 */
export const SOCKETS_INSIDE = '/run/agent-teams';
export const PROXY_SOCKET_NAME = 'proxy.sock';

export interface SandboxedPlan {
  fs: FsPolicy;
  hidden: HiddenPaths;
  /** Host folder mounted at /tmp. */
  tmpDir: string;
  /** Host folder mounted at SOCKETS_INSIDE. */
  socketDir: string;
  /** An empty read-only file mounted over hidden files. */
  emptyFile: string;
  /** Path of socat (on the read-only root). */
  socat: string;
  cwd: string;
  /**
   * The command joins its agent's network namespace, where the bridge already listens
   * (net-holder.ts; bwrap runs under `nsenter`): no namespace or bridge of its own.
   */
  joinedNet?: boolean;
  /** The host's unix sockets to cover (host-sockets.ts). */
  sockets?: SocketCovers;
}

export function sandboxedArgs(p: SandboxedPlan, command: string): string[] {
  // /tmp and /run hold other programs' sockets (ssh-agent, the user's D-Bus, VS Code's IPC,
  // docker): a socket connects through a read-only mount, and some run commands outside.
  // `--cap-drop ALL`: run by root, bwrap makes no user namespace and keeps every capability
  // for the command, which could then `umount` the read-only guards or `umount -l /proc` to
  // see the host's processes (and the key in their environment) — and `nsenter` out.
  const a = ['--die-with-parent', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', ...(p.joinedNet ? [] : ['--unshare-net']), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
    '--bind', p.tmpDir, '/tmp', '--dir', SANDBOX_HOME, '--tmpfs', '/run', '--ro-bind', p.socketDir, SOCKETS_INSIDE];
  // The socket folder is read-only inside: the agent's bridge (net-holder.ts) runs on the host
  // and connects to proxy.sock by path, so a command that put a symlink there would reach any
  // socket of the host (docker, D-Bus, VS Code's IPC).
  // A folder also bound read-write just below (the workspace, when the agent works in it) is not bound twice.
  for (const r of p.fs.readable) if (!p.fs.writable.includes(r)) a.push('--ro-bind', r, r);
  for (const w of p.fs.writable) a.push('--bind', w, w);
  for (const d of p.fs.pinned) a.push('--bind', d, d);
  for (const r of p.fs.readOnly) a.push('--ro-bind', r, r);
  for (const c of p.fs.coverFiles) a.push('--ro-bind', p.emptyFile, c);
  for (const g of p.fs.guarded) a.push('--tmpfs', g, '--remount-ro', g);
  // The command's own branch ref folder and reflogs, writable inside read-only `refs`/`logs`;
  // the folder's other refs read-only again (a mount cannot be renamed over).
  for (const w of p.fs.ownWritable) a.push('--bind', w, w);
  for (const r of p.fs.ownReadOnly) a.push('--ro-bind', r, r);
  for (const f of p.hidden.files) a.push('--ro-bind', p.emptyFile, f);
  for (const d of p.hidden.dirs) a.push('--tmpfs', d, '--remount-ro', d);
  if (p.sockets) a.push(...hostSocketMounts(p.sockets, p.emptyFile));
  a.push('--chdir', p.cwd, '--');
  // Joined: the descriptors are closed and the command run by one bash (no second exec).
  if (p.joinedNet) a.push('/bin/bash', '-o', 'pipefail', '-c', `${ONLY_STDIO}; ${EVAL_COMMAND}`, '/bin/bash', command);
  else a.push('/bin/bash', '-c', withProxy(p.socat), 'agent-teams-sandbox', command);
  return a;
}

/**
 * The mounts that put the host's unix sockets out of reach (host-sockets.ts): an empty
 * read-only folder over each folder holding them, an empty file over each socket in a folder
 * the command needs. Last, after every other mount, so that no bind shows a socket again.
 */
export function hostSocketMounts(c: SocketCovers, emptyFile: string): string[] {
  return [...c.dirs.flatMap((d) => ['--tmpfs', d, '--remount-ro', d]), ...c.files.flatMap((f) => ['--ro-bind', emptyFile, f])];
}

export function unsandboxedArgs(cwd: string, command: string): string[] {
  // Run by root, the command keeps its capabilities (it may install, chown…) but
  // CAP_SYS_ADMIN: with it `umount -l /proc` shows the host's processes again.
  return ['--die-with-parent', '--cap-drop', 'CAP_SYS_ADMIN', '--unshare-pid', '--dev-bind', '/', '/', '--proc', '/proc', '--chdir', cwd, '--', '/bin/bash', '-o', 'pipefail', '-c', command];
}

/**
 * First in the sandbox, before anything else starts there: closes every descriptor but
 * standard input, output and error. bwrap passes on whatever the host process inherited (a
 * pipe or socket a parent of the CLI left open, past the ones Node marks close-on-exec), and
 * the command, or a process it could read `/proc/<pid>/fd` of, must not reach it (docs/security.md).
 */
const ONLY_STDIO = 'for __fd in /proc/self/fd/*; do __fd=${__fd##*/}; if (( __fd > 2 )); then exec {__fd}>&-; fi; done; unset __fd';
const RUN_COMMAND = 'exec /bin/bash -o pipefail -c "$1"';
/**
 * The command run by the bash that closed the descriptors, as `bash -c` would run it: on one
 * line with the loop (the line is parsed whole before any of it runs, so the loop runs first,
 * and the command's line numbers are its own), no positional parameters, `$0` /bin/bash.
 */
const EVAL_COMMAND = '__cmd=$1; set --; eval "$__cmd"';

/**
 * Starts the bridge to the proxy, waits until it listens, then becomes the command. The
 * bridge is the command's child, so it ends with the namespace. socat tells when it listens:
 * with `-lm` it logs to stderr (a pipe read here) until its accept loop starts, says so
 * ("starting accept loop, switching to syslog", info level), and from then on logs only to
 * syslog (no /dev/log inside: nothing) — so the pipe is read without polling, and closed after.
 */
function withProxy(socat: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    ONLY_STDIO,
    `exec 3< <(exec ${q(socat)} -d -d -d -lm TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SOCKETS_INSIDE}/${PROXY_SOCKET_NAME} 2>&1 </dev/null >/dev/null)`,
    // At most 2 s without a line (socat failed to start: then the pipe ends at once).
    `while IFS= read -r -t 2 -u 3 __l; do [[ $__l == *'starting accept loop'* ]] && break; done; exec 3<&-; unset __l`,
    RUN_COMMAND,
  ].join('\n');
}

/** A command's $HOME: in its private /tmp (the user's real home stays read-only). */
export const SANDBOX_HOME = '/tmp/home';

/** The environment a sandboxed command gets on top of the host's (secrets already taken out). */
export function proxyEnv(): Record<string, string> {
  // Caches that live in the (read-only) home folder by default go to the private /tmp; $HOME is a
  // private writable folder there (tools' update checks and state), with the user's git identity still read.
  const env: Record<string, string> = { TMPDIR: '/tmp', XDG_CACHE_HOME: '/tmp/.cache', npm_config_cache: '/tmp/.npm', PIP_CACHE_DIR: '/tmp/.cache/pip', HOME: SANDBOX_HOME };
  if (process.env.HOME) env.GIT_CONFIG_GLOBAL = `${process.env.HOME}/.gitconfig`;
  return { ...env, ...proxyVariables() };
}
