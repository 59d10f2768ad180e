// The session's terminal: readline over the CLI's streams. Lines are handled one at a time
// in order (piped input is a script: each line waits for the one before), questions take
// the next line the way the learn-claude-code tutorial's input() does, and output arriving while the user
// types is printed above the prompt without eating their half-typed line.
import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { terminalSafe, writeLine, type CliIo } from './io';

export interface TerminalHandlers {
  /** One input line (queued lines wait for the previous handler to finish). */
  line(line: string): Promise<void>;
  /** Whether `line` may run at once while an earlier line is still running (TTY only). */
  runsNow(line: string): boolean;
  /** Ctrl-C. */
  interrupt(): void;
  /** Input ended (EOF / Ctrl-D) and every queued line has been handled. */
  end(): void;
}

export class Terminal {
  private rl: Interface | null = null;
  private started: Promise<void>;
  private markStarted!: () => void;
  private queue: string[] = [];
  private pumping = false;
  private promptShown = false;
  private waiter: ((line: string | null) => void) | null = null;
  /** The open question, and which lines answer it (others are not swallowed by it). */
  private asked: { question: string; accepts?: (line: string) => boolean } | null = null;
  private inputEnded = false;
  private closed = false;
  private handlers: TerminalHandlers | null = null;
  private unSigint: (() => void) | null = null;

  constructor(private readonly io: CliIo, private readonly prompt: string) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  /**
   * Starts reading input. readline is created only now: it starts consuming stdin at once,
   * and lines (or the end of piped input) read before our listeners exist would be lost.
   */
  start(handlers: TerminalHandlers): void {
    this.handlers = handlers;
    const rl = createInterface({ input: this.io.stdin, output: this.io.stdout, terminal: this.io.isTTY, prompt: this.prompt, historySize: 200 });
    this.rl = rl;
    rl.on('line', (line) => this.onLine(line));
    rl.on('close', () => {
      this.inputEnded = true;
      this.answer(null);
      void this.pump();
    });
    // In a TTY readline turns ^C into this event; piped, ^C is a signal to the process.
    rl.on('SIGINT', () => handlers.interrupt());
    this.unSigint = this.io.onSigint(() => handlers.interrupt());
    this.markStarted();
    this.showPrompt();
  }

  private onLine(line: string): void {
    this.promptShown = false;
    if (this.waiter) {
      if (!this.asked?.accepts || this.asked.accepts(line)) return this.answer(line);
      // Not an answer: a slash command runs now, anything else waits its turn; the question stays.
      if (this.handlers?.runsNow(line)) {
        void this.handlers.line(line).finally(() => this.reask());
        return;
      }
      this.queue.push(line);
      writeLine(this.io.stdout, `(not an answer, so it goes on as your next input: ${line})`);
      this.reask();
      void this.pump();
      return;
    }
    if (this.io.isTTY && this.pumping && this.handlers?.runsNow(line)) {
      void this.handlers.line(line).finally(() => this.pumping || this.showPrompt());
      return;
    }
    this.queue.push(line);
    void this.pump();
  }

  private answer(line: string | null): void {
    const w = this.waiter;
    this.waiter = null;
    w?.(line);
  }

  private async pump(): Promise<void> {
    if (this.pumping || !this.handlers) return;
    this.pumping = true;
    try {
      while (this.queue.length && !this.closed) await this.handlers.line(this.queue.shift()!);
    } finally {
      this.pumping = false;
    }
    if (this.closed) return;
    if (this.inputEnded) this.handlers.end();
    else this.showPrompt();
  }

  get busy(): boolean {
    return this.pumping;
  }

  showPrompt(): void {
    if (!this.rl || this.closed || this.inputEnded || this.waiter) return;
    this.promptShown = true;
    this.rl.prompt();
  }

  /** Prints output, keeping the prompt and what the user has typed so far below it. */
  print(text: string): void {
    if (this.closed) return;
    this.endStream(false);
    const rl = this.io.isTTY && this.promptShown ? this.rl : null;
    if (rl) {
      clearLine(this.io.stdout, 0);
      cursorTo(this.io.stdout, 0);
    }
    writeLine(this.io.stdout, text);
    rl?.prompt(true);
  }

  /** True while a line of streamed text is open (no newline written yet). */
  private streamOpen = false;

  /** Writes text as it arrives, on its own line(s); endStream() closes the line. */
  stream(text: string): void {
    if (this.closed || !text) return;
    if (!this.streamOpen) {
      if (this.io.isTTY && this.promptShown) {
        clearLine(this.io.stdout, 0);
        cursorTo(this.io.stdout, 0);
      }
      this.streamOpen = true;
    }
    this.io.stdout.write(terminalSafe(text.replace(/\r\n/g, '\n')));
  }

  /** Ends an open streamed line (and shows the prompt again, unless more output follows). */
  endStream(prompt = true): void {
    if (!this.streamOpen) return;
    this.streamOpen = false;
    this.io.stdout.write('\n');
    if (prompt && this.io.isTTY && this.promptShown) this.rl?.prompt(true);
  }

  /**
   * Asks a question and resolves with the next line (null: input ended or `signal`
   * aborted). Piped input answers with the next queued line, as a script would expect.
   */
  async ask(question: string, signal?: AbortSignal, accepts?: (line: string) => boolean): Promise<string | null> {
    // An agent may ask while the session is still starting (the lead woken by old mail).
    await this.started;
    if (this.closed || signal?.aborted) return null;
    if (!this.io.isTTY && this.queue.length) {
      // Piped: the next line answers, as a script expects; one that is no answer is left to run.
      if (accepts && !accepts(this.queue[0]!)) {
        writeLine(this.io.stdout, `${question} (no answer in the input)`);
        return null;
      }
      const line = this.queue.shift()!;
      writeLine(this.io.stdout, `${question} ${line}`);
      return line;
    }
    if (this.inputEnded) return null;
    // An earlier question still open (two agents asking at once) yields to this one.
    this.answer(null);
    this.io.stdout.write(`${question} `);
    this.promptShown = false;
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.waiter === done) this.waiter = null;
        writeLine(this.io.stdout, '');
        resolve(null);
      };
      const done = (line: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        if (this.waiter === null) this.asked = null;
        resolve(line);
      };
      this.waiter = done;
      this.asked = { question, accepts };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Shows the open question again (after output printed below it). */
  private reask(): void {
    if (this.waiter && this.asked && !this.closed) this.io.stdout.write(`${this.asked.question} `);
  }

  /** Whether a question is waiting for its answer. */
  get asking(): boolean {
    return this.waiter !== null;
  }

  /** Ends a pending question with no answer (Ctrl-C). */
  cancelQuestion(): void {
    if (this.waiter) writeLine(this.io.stdout, '');
    this.answer(null);
  }

  /** Clears what the user has typed at the prompt (Ctrl-C at an idle prompt). */
  clearInput(): void {
    if (this.io.isTTY) this.rl?.write(null, { ctrl: true, name: 'u' });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.answer(null);
    this.unSigint?.();
    this.markStarted();
    this.rl?.close();
    // readline leaves a piped stdin flowing; pausing lets the process exit.
    this.io.stdin.pause();
  }
}
