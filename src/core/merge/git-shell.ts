// The merge queue's git calls, through one long-lived `sh` (docs/file-formats.md, "Merge
// queue"). Each call of the queue's worker is a git process either way, but started from a
// small shell instead of from this process: node forks its whole address space for every
// child (about as much CPU as the git process itself on a busy machine, more in an extension
// host of several hundred MB), sh forks a few hundred KB. bench/merge-queue.bench.ts measures it.
//
// One request per line on the shell's stdin: a subshell that changes into the folder, exports
// the call's variables and execs git with its arguments single-quoted; then the shell writes a
// marker on its stdout ("\n<marker> <exit code>\n") and on its stderr ("\n<marker>\n").
// What came before the markers is git's output. The marker is 128 random bits made for this
// shell and never written anywhere git or a file could copy it from, so no output mimics it;
// nothing goes through files (each file read costs the host process more than the call's pipes).
// Calls run one after another. A call over its time limit kills the shell's process group
// (every call in flight fails; the next call starts a new shell).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { WorktreeError } from '../worktree/errors';
import { firstLines, gitEnv, type GitCallOptions, type GitEnvOptions, type GitResult } from '../worktree/git';

/** How the queue's git steps run: `git()` of worktree/git.ts, or a GitShell's `run`. */
export type GitRun = (args: readonly string[], opts: GitCallOptions) => Promise<GitResult>;

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Beyond this much output a call fails rather than hold it all (as worktree/git.ts's git()). */
const MAX_OUTPUT = 64 * 1024 * 1024;

interface Pending {
  resolve(r: { code: number; stdout: string; stderr: string }): void;
  reject(err: Error): void;
}

/** The bytes of one stream of the shell, cut at each marker. */
class Framed {
  private chunks: Buffer[] = [];
  private size = 0;
  readonly done: { body: Buffer; code: string }[] = [];

  constructor(private readonly marker: Buffer, private readonly withCode: boolean) {}

  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    if (this.size > MAX_OUTPUT + 4096) throw new WorktreeError('git-failed', `git produced more than ${MAX_OUTPUT} bytes of output`);
    for (;;) {
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      const at = all.indexOf(this.marker);
      const nl = at < 0 ? -1 : all.indexOf(10, at + this.marker.length);
      if (nl < 0) {
        this.chunks = all.length ? [all] : [];
        return;
      }
      // The marker's line starts with the newline the shell wrote before it.
      const body = all.subarray(0, Math.max(0, at - 1));
      const code = all.subarray(at + this.marker.length, nl).toString('utf8').trim();
      this.done.push({ body, code: this.withCode ? code : '' });
      const rest = all.subarray(nl + 1);
      this.chunks = rest.length ? [rest] : [];
      this.size = rest.length;
    }
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.done.length = 0;
  }
}

export class GitShell {
  private sh: ChildProcess | null = null;
  private readonly pending: Pending[] = [];
  private readonly marker = randomBytes(16).toString('hex');
  private readonly out = new Framed(Buffer.from(this.marker), true);
  private readonly err = new Framed(Buffer.from(this.marker), false);

  constructor(private readonly ctx: GitEnvOptions = {}) {}

  /** Runs `git args` in `opts.cwd`, as worktree/git.ts's `git()` does (same result, same errors). */
  readonly run: GitRun = async (args, opts) => {
    const env = Object.entries(opts.extraEnv ?? {}).map(([k, v]) => `export ${k}=${quote(v)}; `).join('');
    const line = `(cd -- ${quote(opts.cwd)} && ${env}exec git ${args.map(quote).join(' ')}) </dev/null; `
      + `printf '\\n%s %s\\n' ${this.marker} $?; printf '\\n%s\\n' ${this.marker} >&2\n`;
    const timeout = opts.timeoutMs ?? this.ctx.timeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.hold(true);
      timer = setTimeout(() => this.fail(new WorktreeError('timeout', `git ${args[0]} did not finish within ${timeout} ms and was stopped`)), timeout);
      this.shell().stdin!.write(line);
    }).finally(() => clearTimeout(timer));
    // 127: the shell found no git (126: found, not executable); 2: the folder is gone.
    if (code === 127 || code === 126) throw new WorktreeError('git-missing', 'git was not found on PATH: install git to use worktree isolation');
    if (code === 0 || opts.allowFail) return { code, stdout, stderr };
    throw new WorktreeError('git-failed', `git ${args.join(' ')} failed: ${firstLines(stderr || stdout)}`);
  };

  // A call is answered once both of its streams have reached their marker.
  private settle(): void {
    while (this.out.done.length && this.err.done.length) {
      const o = this.out.done.shift()!;
      const e = this.err.done.shift()!;
      const p = this.pending.shift();
      if (!this.pending.length) this.hold(false);
      p?.resolve({ code: Number(o.code), stdout: o.body.toString('utf8'), stderr: e.body.toString('utf8') });
    }
  }

  private shell(): ChildProcess {
    if (this.sh) return this.sh;
    // detached: its own process group, so a stuck call is killed with everything it started.
    const sh = spawn('/bin/sh', [], { env: gitEnv(this.ctx.env ?? process.env), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.sh = sh;
    const take = (f: Framed) => (b: Buffer) => {
      if (this.sh !== sh) return;
      try {
        f.push(b);
      } catch (err) {
        return this.fail(err as Error);
      }
      this.settle();
    };
    sh.stdout!.on('data', take(this.out));
    sh.stderr!.on('data', take(this.err));
    sh.stdin!.on('error', () => undefined); // a dead shell: reported by 'exit'
    sh.once('error', (e) => { if (this.sh === sh) this.fail(new WorktreeError('git-failed', `could not start /bin/sh for git: ${e.message}`)); });
    sh.once('exit', () => { if (this.sh === sh) this.fail(new WorktreeError('git-failed', 'the shell running git ended unexpectedly')); });
    return sh;
  }

  // An idle shell does not keep this process alive (a one-off CLI run ends without dispose();
  // the shell then reads the end of its stdin and exits); one with calls in flight does.
  private hold(on: boolean): void {
    const sh = this.sh;
    if (!sh) return;
    // The pipes are sockets (node's child_process docs), which can be unref'd too.
    for (const h of [sh, sh.stdin, sh.stdout, sh.stderr] as unknown as ({ ref(): void; unref(): void } | null)[]) {
      if (on) h?.ref();
      else h?.unref();
    }
  }

  /** Ends the shell (and the calls in flight, failed with `err`); the next call starts another. */
  private fail(err: Error): void {
    const sh = this.sh;
    this.sh = null;
    this.out.clear();
    this.err.clear();
    if (sh?.pid !== undefined && sh.exitCode === null) {
      try {
        process.kill(-sh.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    for (const p of this.pending.splice(0)) p.reject(err);
  }

  /** Ends the shell once idle. */
  async dispose(): Promise<void> {
    const sh = this.sh;
    if (!sh || sh.exitCode !== null) return;
    this.hold(true); // its exit is awaited: kept alive until then
    const exited = new Promise((r) => sh.once('exit', r));
    this.sh = null;
    sh.stdin!.end();
    await exited;
  }
}
