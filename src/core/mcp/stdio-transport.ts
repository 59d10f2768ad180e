// The MCP stdio transport, ours rather than the SDK's: the server runs as the leader of its
// own process group, so stopping it reaches what it started (`npx` → node → helpers), and
// its stderr is kept as a tail for the report when it fails. Newline-delimited JSON-RPC, as
// the MCP stdio transport specifies.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { killGroup } from '../exec/process-group';
import { withoutSecrets } from '../exec/shell';

const STDERR_TAIL = 4000;
/** One JSON-RPC line larger than this is a broken server, not a message. */
const MAX_LINE = 32 * 1024 * 1024;
/** How long a server gets to exit on its own once its stdin is closed. */
const EXIT_GRACE_MS = 300;

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Control characters (colours, cursor moves) out of what a server printed, lines kept. */
export function cleanOutput(s: string): string {
  return s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  private buffer = '';
  private stderr = '';
  private exited: Promise<ExitInfo> | null = null;
  exit: ExitInfo | null = null;

  constructor(private readonly params: StdioServerParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KB the server wrote to stderr. */
  stderrTail(): string {
    return cleanOutput(this.stderr).trim();
  }

  private closing = false;

  start(): Promise<void> {
    if (this.child) throw new Error('already started');
    if (this.closing) return Promise.reject(new Error('stopped before it started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd,
        // The host's Anthropic key is not handed on (as for bash); the entry's own env is.
        env: { ...withoutSecrets(process.env), ...this.params.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('exit', (code, signal) => done((this.exit = { code, signal }))));
      child.once('error', (err: NodeJS.ErrnoException) => {
        const msg = err.code === 'ENOENT' ? `command not found: ${this.params.command}` : `could not start ${this.params.command}: ${err.message}`;
        reject(new Error(msg));
        this.onerror?.(new Error(msg));
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.child = null;
        this.onclose?.();
      });
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => this.read(chunk));
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
      });
      // A server that exits while we write: reported through close, not as an unhandled error.
      child.stdin!.on('error', (err) => this.onerror?.(err));
    });
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      let msg: JSONRPCMessage;
      try {
        msg = JSON.parse(line) as JSONRPCMessage;
      } catch {
        // A log line printed to stdout by mistake: not fatal, but worth a word in the report.
        this.stderr = (this.stderr + `[stdout, not JSON-RPC] ${line.slice(0, 200)}\n`).slice(-STDERR_TAIL);
        continue;
      }
      this.onmessage?.(msg);
    }
    if (this.buffer.length > MAX_LINE) {
      this.buffer = '';
      this.onerror?.(new Error(`the server sent a line over ${MAX_LINE} bytes`));
      void this.close();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('the server is not running'));
      if (stdin.write(JSON.stringify(message) + '\n')) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Closes stdin, gives the server a moment to exit, then ends its whole process group. */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child) return;
    child.stdin?.end();
    const pid = child.pid;
    if (this.exited) await Promise.race([this.exited, new Promise((r) => setTimeout(r, EXIT_GRACE_MS).unref())]);
    // Even when the leader left, what it started may still hold the group.
    if (pid) await killGroup(pid);
    if (this.exited && !this.exit) await Promise.race([this.exited, new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}
