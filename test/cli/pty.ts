// The CLI in a real pseudo-terminal (util-linux `script`), the way a user at a terminal meets
// it: stdin and stdout are a TTY, so the CLI asks its questions and reads the answer typed.
// Output is read pexpect-style, as ReplProcess does for piped sessions.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cliPath, expectAfter } from './cli-proc';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class PtyProcess {
  out = '';
  private pos = 0;
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d) => (this.out += d));
    child.stderr.on('data', (d) => (this.out += d));
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  }

  /** `agent-teams <args>` in a terminal of its own; `script -e` exits with the CLI's code. */
  static async start(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<PtyProcess> {
    const cmd = [process.execPath, await cliPath(), ...args].map(quote).join(' ');
    const child = spawn('script', ['-qefc', cmd, '/dev/null'], { env: { ...env, SHELL: '/bin/sh', TERM: 'dumb' }, cwd, stdio: 'pipe' });
    return new PtyProcess(child);
  }

  /** Types a line (Enter is a carriage return at a terminal). */
  type(line: string): void {
    this.child.stdin.write(`${line}\r`);
  }

  /** Waits for `re` in the output not yet consumed; consumes through the match. */
  async expect(re: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
    const { match, pos } = await expectAfter(() => this.out, this.pos, re, timeoutMs, () => this.child.exitCode !== null, () => `terminal output; unconsumed:\n${this.out.slice(this.pos)}`);
    this.pos = pos;
    return match;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

/** A terminal session killed if the test fails. */
export async function pty(t: { after(fn: () => void): void }, args: string[], env: NodeJS.ProcessEnv): Promise<PtyProcess> {
  const p = await PtyProcess.start(args, env);
  t.after(() => p.kill());
  return p;
}
