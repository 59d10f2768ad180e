// Background commands (`bash` with run_in_background): each job runs in its own process
// group like a foreground command, but the call returns at once with a job id. Output
// collects between `job_output` calls (capped: head and tail kept, the middle counted);
// a job that ends by itself is announced once through `onEnded` (the runtime turns that
// into a wake for its agent). Jobs are registered in the ProcessRegistry under their
// agent, so they die with it: stop, shutdown, crash, host exit. See docs/tools.md.
import type { ChildProcess } from 'node:child_process';
import { OutputBuffer } from './output-buffer';
import { DEFAULT_KILL_GRACE_MS, killGroup, type ProcessRegistry } from './process-group';
import { MAX_TIMER_MS, nextSpawnTurn, spawnCommand, spawnErrorText, type ShellResult, type SpawnPlan } from './shell';

export const MAX_JOBS_PER_AGENT = 8;
/** Output kept between two job_output calls. */
export const JOB_OUTPUT_BYTES = 30_000;
/** Ended jobs kept for job_output / the views, per agent. */
const KEEP_ENDED = 20;
/** How long to keep reading after the leader exits (as in shell.ts). */
const DRAIN_MS = 300;

export type JobState = 'running' | 'exited' | 'killed';

/** How long a running job keeps its teammate from idling out and the team from counting as quiet. */
export const JOB_WAITED_FOR_MS = 10 * 60_000;

export interface JobInfo {
  id: string;
  owner: string;
  command: string;
  state: JobState;
  exitCode: number | null;
  signal: string | null;
  startedAt: number;
  endedAt: number | null;
  /** A foreground command handed over at the time limit (runForeground): its agent waits for it. */
  handedOver?: boolean;
}

export interface JobRead {
  info: JobInfo;
  output: string;
  /** Bytes left out of `output` because more arrived than fits between two reads. */
  truncated: boolean;
}

export class JobError extends Error {}

interface Job {
  info: JobInfo;
  child: ChildProcess | null;
  /** Stops a job that runs elsewhere (startRemote). */
  stopRemote?: () => void;
  out: OutputBuffer;
  ended: Promise<void>;
  killedOnPurpose: boolean;
  /** A foreground command not (yet) handed over as a job (runForeground). */
  hidden: boolean;
  /** Why a hidden job's command could not start (the foreground result's `error`). */
  startError?: string;
}

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  private seq = 0;
  private foregroundSeq = 0;
  private readonly endedListeners = new Set<(j: JobInfo) => void>();
  private readonly changeListeners = new Set<(owner: string) => void>();

  constructor(private readonly processes: ProcessRegistry, private readonly killGraceMs = DEFAULT_KILL_GRACE_MS) {}

  /** A job ended by itself (not killed by job_kill or its agent's stop). */
  onEnded(listener: (j: JobInfo) => void): { dispose(): void } {
    this.endedListeners.add(listener);
    return { dispose: () => void this.endedListeners.delete(listener) };
  }

  /** An agent's list of jobs changed (for the Team tree and /jobs). */
  onChange(listener: (owner: string) => void): { dispose(): void } {
    this.changeListeners.add(listener);
    return { dispose: () => void this.changeListeners.delete(listener) };
  }

  /**
   * Whether `owner` (or, without one, anyone `which` accepts) has a job running that an agent may
   * be waiting for: one started less than JOB_WAITED_FOR_MS ago. A job running longer (a dev
   * server) keeps nobody awake (docs/tools.md, "Background jobs").
   */
  waitedFor(which: (owner: string, job: JobInfo) => boolean, now = Date.now()): boolean {
    return this.list().some((j) => j.state === 'running' && which(j.owner, j) && now - j.startedAt < JOB_WAITED_FOR_MS);
  }

  list(owner?: string): JobInfo[] {
    return [...this.jobs.values()].filter((j) => !j.hidden && (owner === undefined || j.info.owner === owner)).map((j) => ({ ...j.info }));
  }

  /** `opts.plan`: how to start it (the sandbox's wrapper); released once the job has ended. */
  async start(owner: string, command: string, opts: { cwd: string; env?: NodeJS.ProcessEnv; plan?: SpawnPlan }): Promise<JobInfo> {
    this.roomFor(owner);
    const job = await this.spawnJob(owner, command, opts, JOB_OUTPUT_BYTES, false);
    return { ...job.info };
  }

  /**
   * A foreground command (`bash` without run_in_background), run as a job nobody sees yet: if
   * it ends within `waitMs` its result is the call's, as any command's; past that it is not
   * killed but goes on as a background job of its owner — listed, announced when it ends — and
   * what it printed so far is returned with its id. The agent neither loses the run nor pays a
   * call to start it again in the background (docs/tools.md, "Commands that run long"). It is
   * killed as before when the owner already has MAX_JOBS_PER_AGENT jobs, or when `signal` aborts
   * before it is handed over.
   */
  async runForeground(owner: string, command: string, opts: { cwd: string; plan?: SpawnPlan; waitMs: number; maxOutputBytes: number; signal: AbortSignal }): Promise<{ result: ShellResult } | { job: JobRead }> {
    const t0 = performance.now();
    const unstarted = { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, timeoutMs: opts.waitMs };
    if (opts.signal.aborted) {
      await opts.plan?.release?.().catch(() => undefined);
      return { result: { ...unstarted, aborted: true, durationMs: 0 } };
    }
    let job: Job;
    try {
      job = await this.spawnJob(owner, command, opts, opts.maxOutputBytes, true);
    } catch (e) {
      return { result: { ...unstarted, aborted: false, durationMs: Math.round(performance.now() - t0), error: (e as Error).message.replace(/^the command could not be started: /, '') } };
    }
    const stop = () => void this.stopJob(job);
    opts.signal.addEventListener('abort', stop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), Math.min(opts.waitMs, MAX_TIMER_MS)); });
    const first = await Promise.race([job.ended.then(() => 'ended' as const), late]);
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', stop);
    const overrun = first === 'late' && job.info.state === 'running';
    if (overrun && this.running(owner) < MAX_JOBS_PER_AGENT) {
      // Named as a job only now: a foreground command uses no job number.
      this.jobs.delete(job.info.id);
      job.info.id = `job-${++this.seq}`;
      job.info.handedOver = true;
      this.jobs.set(job.info.id, job);
      job.hidden = false;
      this.changed(owner);
      return { job: this.read(owner, job.info.id) };
    }
    if (overrun) await this.stopJob(job);
    await job.ended;
    this.jobs.delete(job.info.id);
    const captured = job.out.finish();
    return {
      result: {
        exitCode: job.info.exitCode, signal: job.info.signal, output: captured.text, truncated: captured.truncated,
        timedOut: overrun, timeoutMs: opts.waitMs, aborted: job.killedOnPurpose && !overrun, durationMs: Math.round(performance.now() - t0),
        ...(job.startError ? { error: job.startError } : {}),
      },
    };
  }

  private running(owner: string): number {
    return this.list(owner).filter((j) => j.state === 'running').length;
  }

  private roomFor(owner: string): void {
    const running = this.running(owner);
    if (running >= MAX_JOBS_PER_AGENT) {
      throw new JobError(`you already have ${running} background jobs running; stop one with job_kill first`);
    }
  }

  /** Starts `command` as a job; a hidden one is left out of lists, views and announcements (runForeground). */
  private async spawnJob(owner: string, command: string, opts: { cwd: string; env?: NodeJS.ProcessEnv; plan?: SpawnPlan }, maxBytes: number, hidden: boolean): Promise<Job> {
    const id = hidden ? `foreground-${++this.foregroundSeq}` : `job-${++this.seq}`;
    const info: JobInfo = { id, owner, command, state: 'running', exitCode: null, signal: null, startedAt: Date.now(), endedAt: null };
    const job: Job = { info, child: null, out: new OutputBuffer(maxBytes), ended: Promise.resolve(), killedOnPurpose: false, hidden };
    this.jobs.set(id, job);
    this.prune(owner);
    await nextSpawnTurn();
    let child: ChildProcess;
    try {
      child = spawnCommand(command, opts.cwd, opts.plan, opts.env);
    } catch (e) {
      this.jobs.delete(id);
      await opts.plan?.release?.().catch(() => undefined);
      throw new JobError(`the command could not be started: ${(e as Error).message}`);
    }
    job.child = child;
    if (child.pid !== undefined) opts.plan?.started?.(child.pid);
    child.stdout?.on('data', (b: Buffer) => job.out.push('stdout', b));
    child.stderr?.on('data', (b: Buffer) => job.out.push('stderr', b));
    const pgid = child.pid;
    const unrecord = this.processes.recordGroup(owner, pgid, command, hidden ? 'bash' : 'job');
    const untrack = this.processes.track(owner, { command, stop: () => this.stopJob(job) });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    job.ended = new Promise<void>((resolve) => {
      const done = async (code: number | null, sig: NodeJS.Signals | null, err?: Error) => {
        // The leader is gone; what it left running in its group goes too. Output still in
        // the pipes is read first (briefly: an escaped process may hold them open).
        if (pgid !== undefined) void killGroup(pgid, this.killGraceMs).then(unrecord);
        else void unrecord();
        await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))]);
        child.stdout?.destroy();
        child.stderr?.destroy();
        await opts.plan?.release?.().catch(() => undefined);
        untrack();
        info.state = job.killedOnPurpose ? 'killed' : 'exited';
        info.exitCode = code;
        info.signal = sig;
        info.endedAt = Date.now();
        if (err && hidden) job.startError = await spawnErrorText(err, opts.cwd);
        else if (err) job.out.push('stderr', Buffer.from(`\n[could not start: ${err.message}]\n`));
        resolve();
        if (job.hidden) return;
        this.changed(owner);
        if (!job.killedOnPurpose) for (const l of this.endedListeners) l({ ...info });
      };
      child.once('exit', (code, sig) => void done(code, sig));
      child.once('error', (e) => void done(null, null, e));
    });
    if (!hidden) this.changed(owner);
    return job;
  }

  /** Kills a job's whole process group on purpose; resolves once it has ended. */
  private async stopJob(job: Job): Promise<void> {
    if (job.info.state !== 'running') return;
    job.killedOnPurpose = true;
    if (job.stopRemote) job.stopRemote();
    else if (job.child?.pid !== undefined) await killGroup(job.child.pid, this.killGraceMs);
    await job.ended;
  }

  /**
   * A job that runs elsewhere — a container teammate's, in its container (core/container):
   * `run` resolves with the command's result when it ends, and its output is read then; the
   * signal it is given stops it (job_kill, the agent's stop). Ended and announced as any job.
   */
  async startRemote(owner: string, command: string, run: (signal: AbortSignal) => Promise<ShellResult>): Promise<JobInfo> {
    this.roomFor(owner);
    const id = `job-${++this.seq}`;
    const info: JobInfo = { id, owner, command, state: 'running', exitCode: null, signal: null, startedAt: Date.now(), endedAt: null };
    const stopper = new AbortController();
    const job: Job = { info, child: null, out: new OutputBuffer(JOB_OUTPUT_BYTES), ended: Promise.resolve(), killedOnPurpose: false, hidden: false, stopRemote: () => stopper.abort() };
    this.jobs.set(id, job);
    this.prune(owner);
    const untrack = this.processes.track(owner, { command, stop: () => this.stopJob(job) });
    job.ended = run(stopper.signal).then((r) => {
      job.out.push('stdout', Buffer.from(r.output));
      if (r.error) job.out.push('stderr', Buffer.from(`\n[${r.error}]\n`));
      return { code: r.exitCode, sig: r.signal };
    }, (e: Error) => {
      job.out.push('stderr', Buffer.from(`\n[${e.message}]\n`));
      return { code: null, sig: null };
    }).then(({ code, sig }) => {
      untrack();
      Object.assign(info, { state: job.killedOnPurpose ? 'killed' : 'exited', exitCode: code, signal: sig, endedAt: Date.now() });
      this.changed(owner);
      if (!job.killedOnPurpose) for (const l of this.endedListeners) l({ ...info });
    });
    this.changed(owner);
    return { ...info };
  }

  /** Output since the previous read, and whether the job has ended. */
  read(owner: string, id: string, opts: { keep?: boolean } = {}): JobRead {
    const job = this.own(owner, id);
    const captured = job.out.finish();
    // keep: a look (the end message's last lines); the next job_output still returns it all.
    if (!opts.keep) job.out = new OutputBuffer(JOB_OUTPUT_BYTES);
    return { info: { ...job.info }, output: captured.text, truncated: captured.truncated };
  }

  /** Kills the job's whole process group; resolves once it has ended. */
  async kill(owner: string, id: string): Promise<JobInfo> {
    const job = this.own(owner, id);
    await this.stopJob(job);
    return { ...job.info };
  }

  private own(owner: string, id: string): Job {
    const job = this.jobs.get(id);
    if (!job || job.hidden || job.info.owner !== owner) throw new JobError(`no background job "${id}" of yours (job_output lists what you started)`);
    return job;
  }

  private prune(owner: string): void {
    const ended = [...this.jobs.values()].filter((j) => j.info.owner === owner && j.info.state !== 'running');
    for (const j of ended.slice(0, Math.max(0, ended.length - KEEP_ENDED))) this.jobs.delete(j.info.id);
  }

  private changed(owner: string): void {
    for (const l of this.changeListeners) {
      try { l(owner); } catch { /* a broken view never breaks a job */ }
    }
  }
}

/** The text the model sees for a job_output call. */
export function formatJobRead(r: JobRead): string {
  const i = r.info;
  const body = r.output.length ? r.output.replace(/\n$/, '') : '(no new output)';
  const cut = r.truncated ? '\n[More output arrived than fits between two reads: its middle was cut.]' : '';
  const state = i.state === 'running'
    ? `Job ${i.id} is still running.`
    : i.state === 'killed' ? `Job ${i.id} was killed.`
    : `Job ${i.id} ended: ${i.exitCode !== null ? `exit code ${i.exitCode}` : `killed by signal ${i.signal}`}.`;
  return `${body}${cut}\n\n${state}`;
}
