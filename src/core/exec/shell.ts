// The `bash` tool's engine: run one command asynchronously in its own process
// group, with a timeout, an output cap and an AbortSignal, and never leave a
// process behind. Nothing here may block the extension host's event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { REMOVED_ENV } from '../sandbox/policy';
import { OutputBuffer } from './output-buffer';
import { DEFAULT_KILL_GRACE_MS, killGroup, type ProcessRegistry } from './process-group';

export { ProcessRegistry, killGroup, type TrackedProcess } from './process-group';

/**
 * How long to keep reading after the leader exits. Output still in the pipe
 * arrives well within this; a process that escaped the group (setsid) and holds
 * the pipe open must not keep the call waiting for 'close' forever.
 */
const DRAIN_MS = 200;
/** setTimeout fires at once for delays beyond this, so larger means "no timeout". */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * spawn() forks synchronously on the loop thread: 1-10 ms each, more on a busy
 * machine. Eight teammates starting commands in the same tick would stall the
 * host for the sum, so spawns take turns, one per loop iteration, letting timers
 * and I/O run in between.
 */
let spawnQueue: Promise<void> = Promise.resolve();
export function nextSpawnTurn(): Promise<void> {
  const turn = spawnQueue.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  spawnQueue = turn;
  return turn;
}

/**
 * bash's arguments for one command. `pipefail`: a pipeline's exit status is its last failing
 * part's, so `npm test | tail` reports the tests' failure, not tail's 0.
 */
export function bashArgs(command: string): string[] {
  return ['-o', 'pipefail', '-c', command];
}

/**
 * The model keys this host uses (policy.ts REMOVED_ENV) are not handed to the commands agents
 * run: an `env` or a script printing its environment would put a key into a transcript in the
 * workspace and into the model's context.
 */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...env };
  for (const k of REMOVED_ENV) delete clean[k];
  return clean;
}

/** What to start instead of `/bin/bash -c command` (the sandbox's wrapper, src/core/sandbox). */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Called once the command has ended. */
  release?(): Promise<void>;
  /** Called with the pid of the process just started (background jobs). */
  started?(pid: number): void;
}

/** The process for `command`: the plan's, else bash without the secrets in its environment. */
export function spawnCommand(command: string, cwd: string, plan: SpawnPlan | undefined, env: NodeJS.ProcessEnv | undefined): ChildProcess {
  // detached: its own process group, so one signal reaches every descendant.
  return spawn(plan?.file ?? '/bin/bash', plan?.args ?? bashArgs(command), {
    cwd, env: plan?.env ?? withoutSecrets(env ?? process.env), detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface ShellOptions {
  cwd: string;
  /** How to start it (default: bash -c); its `release` is called once the command has ended. */
  plan?: SpawnPlan;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Registers the command so `registry.killAll(owner)` can stop it. */
  track?: { registry: ProcessRegistry; owner: string };
  /** SIGTERM → SIGKILL grace (default 500 ms). */
  killGraceMs?: number;
}

export interface ShellResult {
  exitCode: number | null;
  signal: string | null;
  /** stdout and stderr interleaved in arrival order, head and tail kept when capped. */
  output: string;
  truncated: boolean;
  timedOut: boolean;
  /** The limit that applied, for the timeout notice. */
  timeoutMs: number;
  /** Stopped by the AbortSignal or the registry (force stop). */
  aborted: boolean;
  durationMs: number;
  /** Set when the command could not be started at all (bad cwd, NUL in command). */
  error?: string;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null; error?: Error };

export function runShell(command: string, opts: ShellOptions): Promise<ShellResult> {
  // One internal signal for both ways of stopping: the caller's signal and a force
  // stop through the registry. Tracking starts before the spawn, so a stop that
  // lands while the command waits for its spawn turn keeps it from starting.
  const stopper = new AbortController();
  const forward = () => stopper.abort();
  if (opts.signal?.aborted) stopper.abort();
  else opts.signal?.addEventListener('abort', forward, { once: true });
  let untrack = () => {};
  const done = execute(command, opts, stopper.signal).finally(async () => {
    await opts.plan?.release?.().catch(() => undefined);
    untrack();
    opts.signal?.removeEventListener('abort', forward);
  });
  if (opts.track) {
    untrack = opts.track.registry.track(opts.track.owner, {
      command,
      stop: () => {
        stopper.abort();
        return done.then(() => undefined, () => undefined);
      },
    });
  }
  return done;
}

async function execute(command: string, opts: ShellOptions, signal: AbortSignal): Promise<ShellResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const unstarted = {
    exitCode: null, signal: null, output: '', truncated: false, timedOut: false, timeoutMs: opts.timeoutMs,
  };
  if (!signal.aborted) await nextSpawnTurn();
  if (signal.aborted) return { ...unstarted, aborted: true, durationMs: elapsed() };
  let child: ChildProcess;
  try {
    child = spawnCommand(command, opts.cwd, opts.plan, opts.env);
  } catch (e) {
    return { ...unstarted, aborted: false, durationMs: elapsed(), error: errorText(e) };
  }

  const out = new OutputBuffer(opts.maxOutputBytes);
  child.stdout?.on('data', (b: Buffer) => out.push('stdout', b));
  child.stderr?.on('data', (b: Buffer) => out.push('stderr', b));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, sig) => resolve({ code, signal: sig }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const pgid = child.pid;
  const unrecord = opts.track ? opts.track.registry.recordGroup(opts.track.owner, pgid, command, 'bash') : null;
  const grace = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  let reason: 'timeout' | 'abort' | undefined;
  let killing: Promise<void> | undefined;
  const stop = (why: 'timeout' | 'abort') => {
    reason ??= why;
    if (pgid !== undefined) killing ??= killGroup(pgid, grace);
  };
  const timer = Number.isFinite(opts.timeoutMs) && opts.timeoutMs <= MAX_TIMER_MS
    ? setTimeout(() => stop('timeout'), Math.max(0, opts.timeoutMs))
    : undefined;
  const onAbort = () => stop('abort');
  signal.addEventListener('abort', onAbort, { once: true });

  const exit = await exited;
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  // The leader is gone; background jobs it left in the group go with it.
  if (pgid !== undefined) killing ??= killGroup(pgid, grace);
  // The record goes once the group is (being made) empty: nothing of it is left to orphan.
  if (unrecord) void Promise.resolve(killing).then(unrecord);
  // After a timeout or stop, report only once SIGKILL has gone out to the group.
  if (reason) await killing;
  await within(closed, DRAIN_MS);
  child.stdout?.destroy();
  child.stderr?.destroy();
  const captured = out.finish();
  return {
    exitCode: exit.code,
    signal: exit.signal,
    output: captured.text,
    truncated: captured.truncated,
    timedOut: reason === 'timeout',
    timeoutMs: opts.timeoutMs,
    aborted: reason === 'abort',
    durationMs: elapsed(),
    ...(exit.error ? { error: await spawnErrorText(exit.error, opts.cwd) } : {}),
  };
}

/** The text the model sees for a finished command. */
export function formatShellResult(r: ShellResult): string {
  const notes: string[] = [];
  if (r.error) notes.push(`The command could not be started: ${r.error}`);
  if (r.timedOut) {
    notes.push(`Timed out after ${seconds(r.timeoutMs)}; the command and all its child processes were killed.`);
  } else if (r.aborted) {
    notes.push('Stopped before it finished; the command and all its child processes were killed.');
  } else if (r.exitCode !== null) {
    notes.push(`Exit code: ${r.exitCode}`);
  } else if (r.signal) {
    notes.push(`Killed by signal ${r.signal}`);
  }
  if (r.truncated) notes.push('The output was too long: its middle was cut (see the "bytes truncated" marker).');
  const body = r.output.length > 0 ? r.output.replace(/\n$/, '') : '(no output)';
  return `${body}\n\n${notes.join('\n')}`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Waits for `p`, but at most `ms`; the timer is cleared so it holds nothing alive. */
function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Node reports a missing cwd as "spawn /bin/bash ENOENT", which misleads the model. */
export async function spawnErrorText(e: Error, cwd: string): Promise<string> {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
    const cwdOk = await stat(cwd).then((s) => s.isDirectory(), () => false);
    if (!cwdOk) return `working directory does not exist: ${cwd}`;
  }
  return errorText(e);
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return code ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}
