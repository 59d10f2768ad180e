// One long-lived command loop per container: a bash script started once through the engine's
// exec API that reads requests on its stdin and answers on its stdout. Creating an exec costs
// 100–150 ms with Podman (conmon + runc each time), far from the 30 ms a command may add over
// running it plainly (docs/containers.md, bench `container.exec_ms`); a line on an open stream
// costs a few. Each command runs as the leader of its own session (setsid), so a timeout or an
// abort kills its whole process group, as on the host (src/core/exec/shell.ts).
//
// Wire format (fields separated by one space; lengths in bytes):
//   host → loop   `run <id> <maxBytes> <cwd length> <command length>\n<cwd><command>`
//                 `kill <id> <TERM|KILL>`
//   loop → host   `<id> r <exit status> <output>` — the usual answer: output under 2000 bytes
//                 (stdout and stderr interleaved) with `\` and newlines escaped as `\\` and
//                 `\n`, in one line (bash writes stdout line by line), no process started;
//                 longer output: `<id> o <base64 of ≤3000 bytes>` lines, `<id> s <bytes cut
//                 from the middle>` when over the cap, then `<id> x <exit status>`;
//                 `<id> e cwd` when the working folder does not exist.
// Every write is under 4096 bytes, so concurrent commands' answers never interleave (pipe
// writes of up to PIPE_BUF bytes are atomic). Per command the loop starts three processes (the
// job, the command's bash, one rm): each fork counts on a loaded machine. The image needs bash,
// coreutils and util-linux's setsid.
import { constants as osConstants } from 'node:os';
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
  local id=$1 cap=$2 out="$d/$1" code buf size h t
  if cd -- "$3" 2>/dev/null; then
    setsid bash -o pipefail -c "$4" </dev/null >"$out" 2>&1 &
    echo $! >"$out.p"
    wait $!; code=$?
  else
    printf '%s e cwd\n' "$id"; : >"$out"; code=126
  fi
  IFS= read -r -N 2000 buf <"$out"
  if [ "${"$"}{#buf}" -lt 2000 ]; then
    buf=${"$"}{buf//\\/\\\\}
    printf '%s r %s %s\n' "$id" "$code" "${"$"}{buf//$'\n'/\\n}"
  else
    size=$(stat -c %s "$out")
    if [ "$size" -le "$cap" ]; then emit "$id" o "$out"
    else
      h=$((cap * 6 / 10)); t=$((cap - h))
      head -c "$h" "$out" >"$out.h"; tail -c "$t" "$out" >"$out.t"
      emit "$id" o "$out.h"; printf '%s s %s\n' "$id" "$((size - h - t))"; emit "$id" o "$out.t"
    fi
    printf '%s x %s\n' "$id" "$code"
  fi
  rm -f -- "$out" "$out.p" "$out.h" "$out.t"
}
while IFS=' ' read -r op id a b c; do
  case $op in
    run) IFS= read -r -N "$b" cwd; IFS= read -r -N "$c" cmd; job "$id" "$a" "$cwd" "$cmd" & ;;
    kill) read -r p <"$d/$id.p" 2>/dev/null && kill -s "$a" -- "-$p" 2>/dev/null ;;
  esac
done
`;

/** SIGTERM → SIGKILL grace, as for host commands (src/core/exec/process-group.ts). */
const KILL_GRACE_MS = 500;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** bash reports a command killed by signal n as exit status 128 + n. */
function signalName(n: number): string {
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0] ?? `signal ${n}`;
}

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
  private inbox: Buffer = Buffer.alloc(0);
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
      let graceTimer: NodeJS.Timeout | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (why: 'timeout' | 'abort') => {
        if (reason) return;
        reason = why;
        this.send(`kill ${id} TERM`);
        // Then KILL, and again each second: a stop that came before the command's pid was
        // written finds it on a later try.
        graceTimer = setTimeout(() => {
          this.send(`kill ${id} KILL`);
          killTimer = setInterval(() => this.send(`kill ${id} KILL`), 1000);
        }, KILL_GRACE_MS);
      };
      const timer = Number.isFinite(opts.timeoutMs) && opts.timeoutMs <= MAX_TIMER_MS ? setTimeout(() => stop('timeout'), Math.max(0, opts.timeoutMs)) : undefined;
      const onAbort = () => stop('abort');
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (r: Omit<ShellResult, 'timeoutMs' | 'durationMs'>) => {
        clearTimeout(timer);
        clearTimeout(graceTimer);
        clearInterval(killTimer);
        opts.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        resolve({ ...r, timeoutMs: opts.timeoutMs, durationMs: elapsed() });
      };
      const entry: Pending = {
        parts: [], cut: 0, headLen: 0, badCwd: false,
        done: (code) => {
          const killed = reason !== undefined && code > 128;
          settle({
            exitCode: killed ? null : code, signal: killed ? signalName(code - 128) : null,
            output: this.text(entry), truncated: entry.cut > 0, timedOut: reason === 'timeout', aborted: reason === 'abort',
            ...(entry.badCwd ? { error: `working directory does not exist: ${opts.cwd}` } : {}),
          });
        },
        lost: (why) => settle({ exitCode: null, signal: null, output: this.text(entry), truncated: entry.cut > 0, timedOut: false, aborted: reason === 'abort', error: why }),
      };
      this.pending.set(id, entry);
      const cwd = Buffer.from(opts.cwd, 'utf8');
      const cmd = Buffer.from(command.replace(/\0/g, ''), 'utf8');
      this.send(`run ${id} ${cap} ${cwd.length} ${cmd.length}\n${cwd.toString('utf8')}${cmd.toString('utf8')}`, true);
    });
  }

  /** Ends the loop (commands still running in the container go on until the container stops). */
  close(): void {
    this.stream.end();
    this.onEnd('the command loop was closed');
  }

  private send(text: string, raw = false): void {
    if (!this.ended) this.stream.write(raw ? text : `${text}\n`);
  }

  private text(p: Pending): string {
    const all = Buffer.concat(p.parts);
    if (!p.cut) return all.toString('utf8');
    // The head and the tail arrive back to back; the `s` line fell between them.
    return `${all.subarray(0, p.headLen).toString('utf8')}\n[... ${p.cut} bytes truncated ...]\n${all.subarray(p.headLen).toString('utf8')}`;
  }

  private onData(b: Buffer): void {
    this.inbox = this.inbox.length ? Buffer.concat([this.inbox, b]) : b;
    for (;;) {
      const nl = this.inbox.indexOf(10);
      if (nl < 0) return;
      const [id = '', kind, f1 = ''] = this.inbox.subarray(0, nl).toString('latin1').split(' ');
      const p = this.pending.get(id);
      if (kind === 'r') {
        // The rest of the line is the output, `\\` and newlines escaped.
        const rest = this.inbox.subarray(0, nl).toString('latin1').split(' ').slice(3).join(' ');
        p?.parts.push(Buffer.from(rest.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\')), 'latin1'));
        p?.done(Number(f1));
      } else if (p && kind === 'o') p.parts.push(Buffer.from(f1, 'base64'));
      else if (p && kind === 's') {
        p.cut = Number(f1);
        p.headLen = p.parts.reduce((n, x) => n + x.length, 0);
      } else if (p && kind === 'e') p.badCwd = true;
      else if (p && kind === 'x') p.done(Number(f1));
      this.inbox = this.inbox.subarray(nl + 1);
    }
  }

  private onEnd(why: string): void {
    if (this.ended) return;
    this.ended = this.stderrTail.trim() ? `${why}: ${this.stderrTail.trim()}` : why;
    for (const p of [...this.pending.values()]) p.lost(this.ended);
  }
}
