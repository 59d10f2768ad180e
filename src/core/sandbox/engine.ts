// Which sandbox engine this machine has (docs/security.md): bubblewrap (`bwrap`) for the
// filesystem, process and network namespaces, `socat` to carry the network proxy into the
// sandbox. Found on PATH and tried once (a kernel without unprivileged user namespaces
// refuses bwrap even when it is installed); the answer is kept per PATH for the process.
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export interface EngineStatus {
  /** 'bubblewrap' when commands can be sandboxed here, else null. */
  engine: 'bubblewrap' | null;
  bwrap: string | null;
  socat: string | null;
  /**
   * util-linux's `nsenter`: with it an agent's commands share one network namespace and bridge
   * (net-holder.ts); without it each command starts its own (slower, as safe).
   */
  nsenter: string | null;
  /** bwrap works here: even unsandboxed commands get a pid namespace of their own. */
  pidNamespace: boolean;
  /** What to install (programs), empty when nothing is missing. */
  missing: string[];
  /** Why there is no engine, in words for a notice (null when there is one). */
  reason: string | null;
}

/** How long the trial run may take before bwrap counts as not working. */
const PROBE_MS = 10_000;

const cache = new Map<string, Promise<EngineStatus>>();

/** The engine for this PATH (default: the process's), tried once. */
export function detectEngine(pathEnv = process.env.PATH ?? '', platform: NodeJS.Platform = process.platform): Promise<EngineStatus> {
  const key = `${platform}\u0000${pathEnv}`;
  let hit = cache.get(key);
  if (!hit) cache.set(key, (hit = detect(pathEnv, platform)));
  return hit;
}

async function detect(pathEnv: string, platform: NodeJS.Platform): Promise<EngineStatus> {
  if (platform !== 'linux') {
    const why = platform === 'darwin'
      ? 'the macOS sandbox (Seatbelt) is not supported yet'
      : `commands cannot be sandboxed on ${platform}`;
    return { engine: null, bwrap: null, socat: null, nsenter: null, pidNamespace: false, missing: [], reason: why };
  }
  const [bwrap, socat, nsenter] = await Promise.all([which('bwrap', pathEnv), which('socat', pathEnv), which('nsenter', pathEnv)]);
  const missing = [...(bwrap ? [] : ['bubblewrap']), ...(socat ? [] : ['socat'])];
  const problem = bwrap ? await probe(bwrap) : 'not installed';
  const pidNamespace = problem === null;
  if (missing.length) {
    return { engine: null, bwrap, socat, nsenter, pidNamespace, missing, reason: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed (Debian/Ubuntu: sudo apt-get install ${missing.join(' ')}; Fedora: sudo dnf install ${missing.join(' ')})` };
  }
  if (problem) return { engine: null, bwrap, socat, nsenter, pidNamespace, missing: [], reason: `bubblewrap cannot create namespaces here: ${problem}` };
  return { engine: 'bubblewrap', bwrap, socat, nsenter, pidNamespace, missing: [], reason: null };
}

async function which(name: string, pathEnv: string): Promise<string | null> {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (await access(p, constants.X_OK).then(() => true, () => false)) return p;
  }
  return null;
}

/** Runs `true` the way commands will run; null when it worked, else what bwrap said. */
function probe(bwrap: string): Promise<string | null> {
  return new Promise((resolve) => {
    let err = '';
    const child = spawn(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', '/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_MS);
    child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', (e) => { clearTimeout(timer); resolve(e.message); });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      resolve(code === 0 ? null : (err.trim().split('\n').pop() || `exit ${code ?? sig}`));
    });
  });
}
