// The host side of the bash parser behind permission rules. mvdan-sh is a 1.5 MB GopherJS
// bundle (about 100 ms to load, more on a busy machine) and a hostile command may take long
// to parse, so both happen in a worker thread of its own (shell-worker.ts); the host only
// awaits the answer. Plain commands (the common case) are their own parse and never reach
// the worker. See docs/permissions.md.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { unwrapCommand } from './wrappers';

export interface ShellAnalysis {
  /** Every simple command found anywhere (including inside substitutions), as its words. */
  parts: string[][];
  /**
   * Commands run through wrappers, command strings, aliases and here-documents fed to a shell
   * (`rm x` in `env rm x`, `bash -c 'rm x'`): judged by deny and ask rules, not needed by allow
   * rules (wrappers.ts).
   */
  inner: string[][];
  /** Why some command's name is only known when it runs: such a command is never cleared of deny and ask rules. */
  unknown: string[];
  /** Why rules alone cannot allow this command; empty when every part is plain. */
  hazards: string[];
  /** The command could not be parsed at all. */
  error?: string;
}

export interface ShellRequest { id: number; command: string }
export interface ShellReply { id: number; analysis: ShellAnalysis }

/** A parse (with the parser's first load) that takes longer is given up: the command is asked about. */
export const PARSE_TIMEOUT_MS = 15_000;

/**
 * Words bash takes literally: no quotes, expansions, globs, comments, operators or
 * redirections. A command made only of such words is its own parse.
 */
const PLAIN = /^[A-Za-z0-9_\-./=:@%+,]+(?:[ \t]+[A-Za-z0-9_\-./=:@%+,]+)*$/;

/**
 * The analysis of a plain command, or undefined when it needs the parser (also when it runs
 * a command string that must be parsed: `eval rm x`, `bash -c ls`).
 */
export function plainCommand(command: string): ShellAnalysis | undefined {
  const trimmed = command.trim();
  const words = trimmed.split(/[ \t]+/);
  // `FOO=1 cmd` is an assignment, not a word: the parser says so.
  if (!PLAIN.test(trimmed) || words[0]!.includes('=')) return undefined;
  const u = unwrapCommand(words);
  if (u.code.length) return undefined;
  return { parts: [words], inner: u.runs, unknown: u.unknown, hazards: [] };
}

/** Next to this module in out/ (tests) and next to the bundle in dist/ (esbuild.mjs). */
export function shellWorkerScript(): string {
  return path.join(__dirname, 'shell-worker.js');
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (a: ShellAnalysis) => void; timer: NodeJS.Timeout }>();

function failed(why: string): ShellAnalysis {
  const msg = `the command could not be parsed (${why})`;
  return { parts: [], inner: [], unknown: [], hazards: [msg], error: msg };
}

function settle(id: number, analysis: ShellAnalysis): void {
  const p = pending.get(id);
  if (!p) return;
  pending.delete(id);
  clearTimeout(p.timer);
  p.resolve(analysis);
  if (!pending.size) worker?.unref(); // an idle parser never keeps a CLI process alive
}

/** The worker died or was stopped: every question still open to it is answered "unparsed". */
function lost(w: Worker, why: string): void {
  if (worker !== w) return;
  worker = undefined;
  for (const id of [...pending.keys()]) settle(id, failed(why));
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(shellWorkerScript());
  w.on('message', (m: ShellReply) => settle(m.id, m.analysis));
  w.on('error', (e) => lost(w, `the parser failed: ${e.message}`));
  w.on('exit', (code) => lost(w, `the parser stopped with code ${code}`));
  // After the listeners: adding a 'message' listener refs the thread's port again (Node 20),
  // so a parser warmed up but never asked would keep the process alive.
  w.unref();
  worker = w;
  return w;
}

/**
 * Starts the parser's thread (and its load) ahead of need. Called when rules that judge
 * shell commands are first read, so the first command that needs parsing rarely waits.
 */
export function warmShellParser(): void {
  ensureWorker();
}

/** Splits `command` into the simple commands it runs, with what rules cannot vouch for. */
export function analyzeShell(command: string, timeoutMs = PARSE_TIMEOUT_MS): Promise<ShellAnalysis> {
  const plain = plainCommand(command);
  if (plain) return Promise.resolve(plain);
  const w = ensureWorker();
  const id = ++nextId;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      settle(id, failed(`it took over ${Math.round(timeoutMs / 1000)} s`));
      // A parse stuck that long is not worth keeping: the next question starts a fresh thread.
      lost(w, 'the parser was restarted');
      void w.terminate();
    }, timeoutMs);
    pending.set(id, { resolve, timer });
    w.ref();
    w.postMessage({ id, command } satisfies ShellRequest);
  });
}

/** Ends the parser's thread (tests; a host shutting down). */
export async function stopShellParser(): Promise<void> {
  const w = worker;
  if (!w) return;
  lost(w, 'the parser was stopped');
  await w.terminate();
}
