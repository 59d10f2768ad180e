// The merge queue's git calls, through one long-lived `sh` (docs/file-formats.md, "Merge
// queue"). Each call of the queue's worker is a git process either way, but started from a
// small shell instead of from this process: node forks its whole address space for every
// child (about as much CPU as the git process itself on a busy machine, more in an extension
// host of several hundred MB), sh forks a few hundred KB. bench/merge-queue.bench.ts measures it.
//
// One request per line on the shell's stdin: a subshell that changes into the folder, exports
// the call's variables and execs git with its arguments single-quoted, stdout and stderr into
// files of a private folder, then one line back on the shell's stdout: "<id> <exit code>".
// Calls run one after another. A call over its time limit kills the shell's process group
// (every call in flight fails; the next call starts a new shell).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorktreeError } from '../worktree/errors';
import { firstLines, gitEnv, type GitCallOptions, type GitEnvOptions, type GitResult } from '../worktree/git';

/** How the queue's git steps run: `git()` of worktree/git.ts, or a GitShell's `run`. */
export type GitRun = (args: readonly string[], opts: GitCallOptions) => Promise<GitResult>;

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

interface Pending {
  resolve(code: number): void;
  reject(err: Error): void;
}

export class GitShell {
  private sh: ChildProcess | null = null;
  private dir: Promise<string> | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private buffered = '';

  constructor(private readonly ctx: GitEnvOptions = {}) {}

  /** Runs `git args` in `opts.cwd`, as worktree/git.ts's `git()` does (same result, same errors). */
  readonly run: GitRun = async (args, opts) => {
    const dir = await (this.dir ??= mkdtemp(join(tmpdir(), 'agent-teams-git-')));
    const id = ++this.next;
    const [out, err] = [join(dir, `${id}.o`), join(dir, `${id}.e`)];
    const env = Object.entries(opts.extraEnv ?? {}).map(([k, v]) => `export ${k}=${quote(v)}; `).join('');
    const line = `(cd -- ${quote(opts.cwd)} && ${env}exec git ${args.map(quote).join(' ')}) >${quote(out)} 2>${quote(err)} </dev/null; echo "${id} $?"\n`;
    const timeout = opts.timeoutMs ?? this.ctx.timeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const code = await new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.hold(true);
      timer = setTimeout(() => this.fail(new WorktreeError('timeout', `git ${args[0]} did not finish within ${timeout} ms and was stopped`)), timeout);
      this.shell().stdin!.write(line);
    }).finally(() => clearTimeout(timer));
    const [stdout, stderr] = await Promise.all([out, err].map((f) => readFile(f, 'utf8').catch(() => '')));
    void rm(out, { force: true });
    void rm(err, { force: true });
    // 127: the shell found no git (126: found, not executable); 2: the folder is gone.
    if (code === 127 || code === 126) throw new WorktreeError('git-missing', 'git was not found on PATH: install git to use worktree isolation');
    if (code === 0 || opts.allowFail) return { code, stdout, stderr };
    throw new WorktreeError('git-failed', `git ${args.join(' ')} failed: ${firstLines(stderr || stdout)}`);
  };

  private shell(): ChildProcess {
    if (this.sh) return this.sh;
    // detached: its own process group, so a stuck call is killed with everything it started.
    const sh = spawn('/bin/sh', [], { env: gitEnv(this.ctx.env ?? process.env), detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    this.sh = sh;
    sh.stdout!.setEncoding('utf8');
    sh.stdout!.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const [id, code] = this.buffered.slice(0, nl).split(' ').map(Number);
        this.buffered = this.buffered.slice(nl + 1);
        const p = this.pending.get(id!);
        this.pending.delete(id!);
        if (!this.pending.size) this.hold(false);
        p?.resolve(code!);
      }
    });
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
    for (const h of [sh, sh.stdin, sh.stdout] as unknown as ({ ref(): void; unref(): void } | null)[]) {
      if (on) h?.ref();
      else h?.unref();
    }
  }

  /** Ends the shell (and the calls in flight, failed with `err`); the next call starts another. */
  private fail(err: Error): void {
    const sh = this.sh;
    this.sh = null;
    this.buffered = '';
    if (sh?.pid !== undefined && sh.exitCode === null) {
      try {
        process.kill(-sh.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const p of calls) p.reject(err);
  }

  /** Ends the shell once idle and removes its folder. */
  async dispose(): Promise<void> {
    const sh = this.sh;
    this.sh = null;
    if (sh && sh.exitCode === null) {
      this.sh = sh;
      this.hold(true); // its exit is awaited: kept alive until then
      this.sh = null;
      const exited = new Promise((r) => sh.once('exit', r));
      sh.stdin!.end();
      await exited;
    }
    const dir = this.dir;
    this.dir = null;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
