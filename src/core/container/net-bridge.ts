// A container teammate's way out (docs/containers.md, "Network"): its container has network
// `none`, so the product copies its bridge program (native/netbridge.c, static, one per
// architecture, shipped next to this bundle) into the container, starts it through the engine's
// exec API listening on the container's 127.0.0.1 at the policy's proxy port, and hands each
// connection it carries to the product's proxy for this agent — the same proxy, host policy and
// questions as a sandboxed command on this machine. It works the same on a remote engine: only
// the engine's API stream crosses, never a socket or a shared folder.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable, type Duplex, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { NETWORK } from '../sandbox/policy';
import { BridgeLink } from './bridge-link';
import type { CommandLoop } from './command-loop';
import { tarOneFile } from './tar';

/**
 * Where the bridge program goes in the container (the command loop's files are in /tmp too): a
 * new name each start, so a copy still running (killed, not yet gone) is never overwritten.
 */
const INSIDE = '/tmp/.agent-teams-netbridge';
const READY_MS = 10_000;
/**
 * What the host holds of the bridge's output that no connection has taken yet (per direction of
 * the PassThrough, so twice this at most): beyond it the engine's stream is no longer read and the
 * bridge's writes block in the container (docs/containers.md: a reader that stalls stalls the bridge).
 */
const HELD = 1 << 20;
/** A shell loop running `action` (with `$p`, /proc/<pid>) for each process whose program matches `pattern`. */
const forBridges = (pattern: string, action: string) => `for p in /proc/[0-9]*; do case "$(readlink "$p/exe" 2>/dev/null)" in ${pattern}) ${action};; esac; done`;
const running = (inside: string) => `${forBridges(inside, 'echo running; exit')}; true`;
const STOP_OLD = `${forBridges(`${INSIDE}-*`, 'kill -9 "${p#/proc/}"')}; rm -f ${INSIDE}-*; true`;

/** The program for an image's architecture (the engine's names), or null for one we do not build. */
export function bridgeProgram(architecture: string, dir = join(__dirname, 'netbridge')): string | null {
  const arch = { amd64: 'amd64', x86_64: 'amd64', arm64: 'arm64', aarch64: 'arm64' }[architecture.toLowerCase()];
  return arch ? join(dir, `netbridge-linux-${arch}`) : null;
}

export interface NetBridge {
  /** Why it ended (null while it runs). */
  readonly ended: string | null;
  /**
   * Whether it still runs. While a stalled connection holds its stream (demux, below) its end is
   * not read, so the container is asked: a bridge killed then would otherwise never be started again.
   */
  running(): Promise<boolean>;
  close(): void;
}

/**
 * Starts the bridge in `container` (running; `loop` its command loop) for an image of `architecture`; each connection
 * goes to `accept`. Resolves with the bridge, or `{ unavailable }` saying why there is none
 * (no program for the architecture, the program failed to start).
 */
export async function startNetBridge(container: Docker.Container, loop: CommandLoop, architecture: string, accept: (conn: Duplex) => void, dir?: string): Promise<NetBridge | { unavailable: string }> {
  const program = bridgeProgram(architecture, dir);
  if (!program) return { unavailable: `no network bridge for ${architecture} containers (amd64 and arm64 only)` };
  const bytes = await readFile(program).catch(() => null);
  if (!bytes) return { unavailable: `this build of Agent Teams has no network bridge for ${architecture} (${program} is missing: scripts/build-netbridge.mjs builds it)` };
  // An earlier bridge (this host's before a restart or a malformed stream, or one left by a host
  // that died) still holds the port: the engine does not pass the end of an exec's input on.
  await loop.run(STOP_OLD, { cwd: '/', timeoutMs: 10_000, maxOutputBytes: 1000 });
  const inside = `${INSIDE}-${randomBytes(4).toString('hex')}`;
  await container.putArchive(tarOneFile(inside.slice('/tmp/'.length), bytes, 0o755), { path: '/tmp' });
  const exec = await container.exec({ Cmd: [inside, String(NETWORK.proxyPort)], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false });
  const stream = await exec.start({ hijack: true, stdin: true }) as unknown as Duplex;
  const out = new PassThrough({ highWaterMark: HELD });
  const err = new PassThrough();
  let said = '';
  err.on('data', (b: Buffer) => { said = (said + b.toString('utf8')).slice(-500); });
  demux(stream, out, err);
  stream.once('end', () => out.end());
  stream.once('close', () => out.end());
  stream.on('error', (e) => out.destroy(e));
  const link = new BridgeLink(out, stream, accept);
  const why = await link.ready(READY_MS);
  if (why) {
    link.close();
    return { unavailable: `the network bridge did not start: ${said.trim() || why}` };
  }
  return {
    get ended() { return link.ended; },
    close: () => link.close(),
    running: async () => {
      if (!link.alive) return false;
      if (!link.held) return true;
      // The engine says an exec runs until its output was read: the container is asked.
      if ((await loop.run(running(inside), { cwd: '/', timeoutMs: 10_000, maxOutputBytes: 1000 })).output.includes('running')) return true;
      link.close();
      return false;
    },
  };
}

/**
 * The engine's multiplexed exec output (a header of 8 bytes: the stream, 1 stdout or 2 stderr,
 * then the length as u32 BE at 4) split into `out` and `err`, read only as fast as `out` is taken.
 * Not the engine client's demuxStream: it writes on whatever `out` says, so a connection whose far
 * end stopped reading had the host hold everything the container sent after it (700 MB for
 * 150 MB sent: test/container/network-attacks.test.ts).
 */
function demux(stream: Readable, out: Writable, err: Writable): void {
  let held: Buffer = Buffer.alloc(0);
  stream.pipe(new Writable({
    write(chunk: Buffer, _enc, cb) {
      held = held.length ? Buffer.concat([held, chunk]) : chunk;
      let full = false;
      while (held.length >= 8 && held.length >= 8 + held.readUInt32BE(4)) {
        const body = held.subarray(8, 8 + held.readUInt32BE(4));
        if (held[0] === 2) err.write(body);
        else if (!out.writableEnded) full = !out.write(body) || full;
        held = held.subarray(8 + body.length);
      }
      if (!full || out.writableEnded || out.destroyed) { cb(); return; }
      // Read on once it was taken, or once nobody will take it (the bridge ended).
      const go = () => { out.off('drain', go); out.off('close', go); cb(); };
      out.on('drain', go).on('close', go);
    },
  }));
}
