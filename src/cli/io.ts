// The CLI's window on the outside world. `run()` takes one so tests can drive the whole
// command line in-process with their own streams; `processIo()` is the real terminal.
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdin and stdout are a terminal: readline edits lines and catches Ctrl-C itself. */
  isTTY: boolean;
  /**
   * Calls `handler` on SIGINT delivered to the process (piped stdin: Ctrl-C in the shell
   * arrives as a signal, not as a keystroke). Returns the unsubscribe.
   */
  onSigint(handler: () => void): () => void;
  /** Calls `handler` when the process is told to end (SIGTERM, or SIGHUP: the terminal closed). */
  onTerminate?(handler: (signal: 'SIGTERM' | 'SIGHUP') => void): () => void;
}

export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    onSigint(handler) {
      process.on('SIGINT', handler);
      return () => void process.off('SIGINT', handler);
    },
    onTerminate(handler) {
      const term = () => handler('SIGTERM');
      const hup = () => handler('SIGHUP');
      process.on('SIGTERM', term);
      process.on('SIGHUP', hup);
      return () => {
        process.off('SIGTERM', term);
        process.off('SIGHUP', hup);
      };
    },
  };
}

/**
 * `text` with terminal control characters made visible (ESC as `^[`): what agents, roles or
 * messages say must not clear the screen, move the cursor or set the window title.
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? `^${String.fromCharCode(code + 64)}` : code === 0x7f ? '^?' : '?';
  });
}

/** Writes one line (a trailing newline is added unless present), control characters made visible. */
export function writeLine(stream: Writable, text = ''): void {
  const safe = terminalSafe(text);
  stream.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}
