// One long-lived command loop per container: a bash script started once through the engine's
// exec API that reads requests on its stdin and answers on its stdout. Creating an exec costs
// 100–150 ms with Podman (conmon + runc each time), far from the 30 ms a command may add over
// running it plainly (docs/containers.md, bench `container.exec_ms`); a line on an open stream
// costs a few. Each command runs as the leader of its own session (setsid), so a timeout or an
// abort kills its whole process group, as on the host (src/core/exec/shell.ts).
//
// Wire format, one line each way, fields separated by one space:
//   host → loop   `run <id> <maxBytes> <cwd base64> <command base64>` · `kill <id> <TERM|KILL>`
//   loop → host   `<id> o <base64 of ≤3000 output bytes>` (stdout and stderr interleaved)
//                 `<id> s <bytes cut from the middle>` · `<id> x <exit status>`
// Lines are under 4096 bytes, so concurrent commands' lines never interleave (pipe writes of
// up to PIPE_BUF bytes are atomic). The image needs bash, coreutils and util-linux's setsid.
import type { Duplex } from 'node:stream';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { ShellResult } from '../exec/shell';

const LOOP_SCRIPT = String.raw`
LC_ALL=C
d=/tmp/.agent-teams-exec
mkdir -p "$d"
emit() { base64 -w 3000 "$3" | while IFS= read -r l; do printf '%s %s %s\n' "$1" "$2" "$l"; done; }
job() {
  local id=$1 cap=$2 out="$d/$1.out" code size h t
  if cd -- "$3" 2>"$out"; then
    setsid bash -o pipefail -c "$4" </dev/null >"$out" 2>&1 &
    echo $! >"$d/$id.pid"
    wait $!; code=$?
  else
    printf '%s e cwd\n' "$id"; code=126
  fi
  size=$(stat -c %s "$out")
  if [ "$size" -le "$cap" ]; then emit "$id" o "$out"
  else
    h=$((cap * 6 / 10)); t=$((cap - h))
    head -c "$h" "$out" >"$out.h"; tail -c "$t" "$out" >"$out.t"
    emit "$id" o "$out.h"; printf '%s s %s\n' "$id" "$((size - h - t))"; emit "$id" o "$out.t"
  fi
  printf '%s x %s\n' "$id" "$code"
  rm -f "$out" "$out.h" "$out.t" "$d/$id.pid"
}
while IFS=' ' read -r op id a b c; do
  case $op in
    run) job "$id" "$a" "$(printf %s "$b" | base64 -d)" "$(printf %s "$c" | base64 -d)" & ;;
    kill) read -r p <"$d/$id.pid" 2>/dev/null && kill -s "$a" -- "-$p" 2>/dev/null ;;
  esac
done
`;

/** SIGTERM → SIGKILL grace, as for host commands (src/core/exec/process-group.ts). */
const KILL_GRACE_MS = 500;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LoopRunOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

interface Pending {
  parts: Buffer[];
  /** Bytes the loop cut from the middle (the output was over the cap), and where. */
  cut: number;
  headLen: number;
  /** The loop could not enter the working directory. */
  badCwd: boolean;
  done(code: number): void;
  lost(why: string): void;
}

export class CommandLoop {
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  private partial = '';
  private ended: string | null = null;
  private stderrTail = '';

  private constructor(private readonly stream: Duplex) {}

  /** Starts the loop in `container` (running) with `env` for every command. */
  static async start(container: Docker.Container, env: Record<string, string>): Promise<CommandLoop> {
    const exec = await container.exec({
      Cmd: ['bash', '-c', LOOP_SCRIPT], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    });
    const stream = await exec.start({ hijack: true, stdin: true }) as unknown as Duplex;
    const loop = new CommandLoop(stream);
    const out = new PassThrough();
    const err = new PassThrough();
    container.modem.demuxStream(stream, out, err);
    out.on('data', (b: Buffer) => loop.onData(b));
    err.on('data', (b: Buffer) => { loop.stderrTail = (loop.stderrTail + b.toString('utf8')).slice(-500); });
    const end = (why: string) => loop.onEnd(why);
    stream.on('end', () => end('the command loop in the container ended'));
    stream.on('close', () => end('the connection to the container engine closed'));
    stream.on('error', (e) => end(`the connection to the container engine failed: ${e.message}`));
    return loop;
  }

  get alive(): boolean {
    return this.ended === null;
  }

  /** Runs `command` in the container; the same result shape as a host command. */
  run(command: string, opts: LoopRunOptions): Promise<ShellResult> {
    const started = performance.now();
    const base = { truncated: false, timedOut: false, timeoutMs: opts.timeoutMs, aborted: false };
    const elapsed = () => Math.round(performance.now() - started);
    if (this.ended) return Promise.resolve({ ...base, exitCode: null, signal: null, output: '', durationMs: 0, error: this.ended });
    if (opts.signal?.aborted) return Promise.resolve({ ...base, exitCode: null, signal: null, output: '', aborted: true, durationMs: 0 });
    const id = String(++this.nextId);
    const cap = Math.max(16, Math.floor(opts.maxOutputBytes));
    return new Promise<ShellResult>((resolve) => {
      let reason: 'timeout' | 'abort' | undefined;
      let sent: 'TERM' | 'KILL' | undefined;
      let graceTimer: NodeJS.Timeout | undefined;
      const stop = (why: 'timeout' | 'abort') => {
        if (reason) return;
        reason = why;
        this.send(`kill ${id} TERM`);
        sent = 'TERM';
        graceTimer = setTimeout(() => { this.send(`kill ${id} KILL`); sent = 'KILL'; }, KILL_GRACE_MS);
      };
      const timer = Number.isFinite(opts.timeoutMs) && opts.timeoutMs <= MAX_TIMER_MS ? setTimeout(() => stop('timeout'), Math.max(0, opts.timeoutMs)) : undefined;
      const onAbort = () => stop('abort');
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (r: Omit<ShellResult, 'timeoutMs' | 'durationMs'>) => {
        clearTimeout(timer);
        clearTimeout(graceTimer);
        opts.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        resolve({ ...r, timeoutMs: opts.timeoutMs, durationMs: elapsed() });
      };
      const entry: Pending = {
        parts: [], cut: 0, headLen: 0, badCwd: false,
        done: (code) => {
          const killed = reason !== undefined && code > 128;
          settle({
            exitCode: killed ? null : code, signal: killed ? `SIG${sent ?? 'TERM'}` : null,
            output: this.text(entry), truncated: entry.cut > 0, timedOut: reason === 'timeout', aborted: reason === 'abort',
            ...(entry.badCwd ? { error: `working directory does not exist: ${opts.cwd}` } : {}),
          });
        },
        lost: (why) => settle({ exitCode: null, signal: null, output: this.text(entry), truncated: entry.cut > 0, timedOut: false, aborted: reason === 'abort', error: why }),
      };
      this.pending.set(id, entry);
      const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
      this.send(`run ${id} ${cap} ${b64(opts.cwd)} ${b64(command)}`);
    });
  }

  /** Ends the loop (commands still running in the container go on until the container stops). */
  close(): void {
    this.stream.end();
    this.onEnd('the command loop was closed');
  }

  private send(line: string): void {
    if (!this.ended) this.stream.write(`${line}\n`);
  }

  private text(p: Pending): string {
    const all = Buffer.concat(p.parts);
    if (!p.cut) return all.toString('utf8');
    // The head and the tail arrive back to back; the `s` line fell between them.
    return `${all.subarray(0, p.headLen).toString('utf8')}\n[... ${p.cut} bytes truncated ...]\n${all.subarray(p.headLen).toString('utf8')}`;
  }

  private onData(b: Buffer): void {
    const lines = (this.partial + b.toString('latin1')).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const [id, kind, rest = ''] = line.split(' ', 3);
      const p = this.pending.get(id!);
      if (!p) continue;
      if (kind === 'o') p.parts.push(Buffer.from(rest, 'base64'));
      else if (kind === 's') {
        p.cut = Number(rest);
        p.headLen = p.parts.reduce((n, x) => n + x.length, 0);
      } else if (kind === 'e') p.badCwd = true;
      else if (kind === 'x') p.done(Number(rest));
    }
  }

  private onEnd(why: string): void {
    if (this.ended) return;
    this.ended = this.stderrTail.trim() ? `${why}: ${this.stderrTail.trim()}` : why;
    for (const p of [...this.pending.values()]) p.lost(this.ended);
  }
}
