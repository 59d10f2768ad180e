// Runs one hook command (docs/hooks.md): `bash -c` in its own process group, the event's
// JSON on stdin, stdout and stderr kept apart (and capped), a timeout after which the whole
// group is killed. Asynchronous throughout: a hook never blocks the host's event loop, and
// whatever it does, the call settles by its timeout (plus the kill grace).
import { spawn, type ChildProcess } from 'node:child_process';
import { killGroup } from '../exec/process-group';
import { nextSpawnTurn, withoutSecrets, type SpawnPlan } from '../exec/shell';

/** Most of a stream kept from one run (a chatty hook cannot flood the transcript or memory). */
const MAX_STREAM_CHARS = 64_000;
/** How long output is still read after the command exits (a daemon it left holds the pipe). */
const DRAIN_MS = 200;

export interface HookProcessResult {
  /** null: killed (timeout, signal) or not started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
  /** It could not be started at all (bad folder). */
  error?: string;
}

export interface HookProcessOptions {
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  killGraceMs?: number;
  /** How to start it (the command sandbox's plan, docs/hooks.md "Where hooks run"); its `release` is called once it has ended. */
  plan?: SpawnPlan;
}

function capped(): { push(b: Buffer): void; text(): string } {
  let s = '';
  let dropped = 0;
  return {
    push(b) {
      const room = MAX_STREAM_CHARS - s.length;
      if (room > 0) s += b.toString('utf8').slice(0, room);
      dropped += Math.max(0, b.length - Math.max(0, room));
    },
    text: () => (dropped ? `${s}\n… (${dropped} more bytes not kept)` : s),
  };
}

export async function runHookProcess(command: string, input: string, opts: HookProcessOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  await nextSpawnTurn();
  let child: ChildProcess;
  try {
    child = spawn(opts.plan?.file ?? '/bin/bash', opts.plan?.args ?? ['-c', command], {
      cwd: opts.cwd, env: opts.plan ? { ...opts.plan.env, ...hookVars(opts.env) } : withoutSecrets(opts.env ?? process.env), detached: true, stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    await opts.plan?.release?.();
    return { exitCode: null, stdout: '', stderr: '', timedOut: false, ms: ms(), error: (e as Error).message };
  }
  if (child.pid !== undefined) opts.plan?.started?.(child.pid);
  const out = capped();
  const err = capped();
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  // A hook that never reads its stdin (and exits first) is not an error.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(input);
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('exit', (code) => resolve({ code }));
    child.once('error', (error) => resolve({ code: null, error }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let timedOut = false;
  let killing: Promise<void> | undefined;
  const kill = () => {
    if (child.pid !== undefined) killing ??= killGroup(child.pid, opts.killGraceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, Math.max(1, opts.timeoutMs));
  opts.signal?.addEventListener('abort', kill, { once: true });
  const exit = await exited;
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', kill);
  // Whatever it left running in its group goes with it.
  kill();
  if (timedOut) await killing;
  let drain: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise<void>((r) => (drain = setTimeout(r, DRAIN_MS)))]).finally(() => clearTimeout(drain));
  child.stdout?.destroy();
  child.stderr?.destroy();
  await opts.plan?.release?.();
  return {
    exitCode: timedOut ? null : exit.code, stdout: out.text(), stderr: err.text(), timedOut, ms: ms(),
    ...(exit.error ? { error: exit.error.message } : {}),
  };
}

/** The variables a hook is given on top of a sandboxed command's environment. */
function hookVars(env: NodeJS.ProcessEnv | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['CLAUDE_PROJECT_DIR', 'AGENT_TEAMS_AGENT']) if (env?.[k] !== undefined) out[k] = env[k]!;
  return out;
}
