// Background commands (`bash` with run_in_background): each job runs in its own process
// group like a foreground command, but the call returns at once with a job id. Output
// collects between `job_output` calls (capped: head and tail kept, the middle counted);
// a job that ends by itself is announced once through `onEnded` (the runtime turns that
// into a wake for its agent). Jobs are registered in the ProcessRegistry under their
// agent, so they die with it: stop, shutdown, crash, host exit. See docs/tools.md.
import type { ChildProcess } from 'node:child_process';
import { OutputBuffer } from './output-buffer';
import { DEFAULT_KILL_GRACE_MS, killGroup, type ProcessRegistry } from './process-group';
import { nextSpawnTurn, spawnCommand, type ShellResult, type SpawnPlan } from './shell';

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
}

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  private seq = 0;
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
  waitedFor(which: (owner: string) => boolean, now = Date.now()): boolean {
    return this.list().some((j) => j.state === 'running' && which(j.owner) && now - j.startedAt < JOB_WAITED_FOR_MS);
  }

  list(owner?: string): JobInfo[] {
    return [...this.jobs.values()].filter((j) => owner === undefined || j.info.owner === owner).map((j) => ({ ...j.info }));
  }

  /** `opts.plan`: how to start it (the sandbox's wrapper); released once the job has ended. */
  async start(owner: string, command: string, opts: { cwd: string; env?: NodeJS.ProcessEnv; plan?: SpawnPlan }): Promise<JobInfo> {
    const running = this.list(owner).filter((j) => j.state === 'running').length;
    if (running >= MAX_JOBS_PER_AGENT) {
      throw new JobError(`you already have ${running} background jobs running; stop one with job_kill first`);
    }
    const id = `job-${++this.seq}`;
    const info: JobInfo = { id, owner, command, state: 'running', exitCode: null, signal: null, startedAt: Date.now(), endedAt: null };
    const job: Job = { info, child: null, out: new OutputBuffer(JOB_OUTPUT_BYTES), ended: Promise.resolve(), killedOnPurpose: false };
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
    const unrecord = this.processes.recordGroup(owner, pgid, command, 'job');
    const untrack = this.processes.track(owner, {
      command,
      stop: async () => {
        job.killedOnPurpose = true;
        if (pgid !== undefined) await killGroup(pgid, this.killGraceMs);
        await job.ended;
      },
    });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    job.ended = new Promise<void>((resolve) => {
      const done = async (code: number | null, sig: NodeJS.Signals | null, err?: Error) => {
        // The leader is gone; what it left running in its group goes too. Output still in
        // the pipes is read first (briefly: an escaped process may hold them open).
        if (pgid !== undefined) void killGroup(pgid, this.killGraceMs).then(unrecord);
        else void unrecord();
        await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))]);
        await opts.plan?.release?.().catch(() => undefined);
        untrack();
        info.state = job.killedOnPurpose ? 'killed' : 'exited';
        info.exitCode = code;
        info.signal = sig;
        info.endedAt = Date.now();
        if (err) job.out.push('stderr', Buffer.from(`\n[could not start: ${err.message}]\n`));
        resolve();
        this.changed(owner);
        if (!job.killedOnPurpose) for (const l of this.endedListeners) l({ ...info });
      };
      child.once('exit', (code, sig) => void done(code, sig));
      child.once('error', (e) => void done(null, null, e));
    });
    this.changed(owner);
    return { ...info };
  }

  /**
   * A job that runs elsewhere — a container teammate's, in its container (core/container):
   * `run` resolves with the command's result when it ends, and its output is read then; the
   * signal it is given stops it (job_kill, the agent's stop). Ended and announced as any job.
   */
  async startRemote(owner: string, command: string, run: (signal: AbortSignal) => Promise<ShellResult>): Promise<JobInfo> {
    const running = this.list(owner).filter((j) => j.state === 'running').length;
    if (running >= MAX_JOBS_PER_AGENT) throw new JobError(`you already have ${running} background jobs running; stop one with job_kill first`);
    const id = `job-${++this.seq}`;
    const info: JobInfo = { id, owner, command, state: 'running', exitCode: null, signal: null, startedAt: Date.now(), endedAt: null };
    const stopper = new AbortController();
    const job: Job = { info, child: null, out: new OutputBuffer(JOB_OUTPUT_BYTES), ended: Promise.resolve(), killedOnPurpose: false, stopRemote: () => stopper.abort() };
    this.jobs.set(id, job);
    this.prune(owner);
    const untrack = this.processes.track(owner, { command, stop: async () => { job.killedOnPurpose = true; stopper.abort(); await job.ended; } });
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
  read(owner: string, id: string): JobRead {
    const job = this.own(owner, id);
    const captured = job.out.finish();
    job.out = new OutputBuffer(JOB_OUTPUT_BYTES);
    return { info: { ...job.info }, output: captured.text, truncated: captured.truncated };
  }

  /** Kills the job's whole process group; resolves once it has ended. */
  async kill(owner: string, id: string): Promise<JobInfo> {
    const job = this.own(owner, id);
    if (job.info.state === 'running' && job.stopRemote) {
      job.killedOnPurpose = true;
      job.stopRemote();
      await job.ended;
    } else if (job.info.state === 'running' && job.child?.pid !== undefined) {
      job.killedOnPurpose = true;
      await killGroup(job.child.pid, this.killGraceMs);
      await job.ended;
    }
    return { ...job.info };
  }

  private own(owner: string, id: string): Job {
    const job = this.jobs.get(id);
    if (!job || job.info.owner !== owner) throw new JobError(`no background job "${id}" of yours (job_output lists what you started)`);
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
