// Child-process plumbing for benchmarks. Load generators run in separate processes because
// the guarantees under test are cross-process ones; they talk to the bench over the IPC
// channel so that (1) every child can be held at a start barrier until all are loaded —
// otherwise Node start-up time (~100 ms each, more on a loaded box) would stagger the load
// and hide contention — and (2) results come back as structured data, not parsed stdout.
import { fork, type ChildProcess } from 'node:child_process';

export interface Child<R> {
  proc: ChildProcess;
  /** Resolves when the child has loaded and is waiting for `go`. */
  ready: Promise<void>;
  /** The child's `done` payload; rejects if it exits without one or with a failure. */
  done: Promise<R>;
  /** Sends a control message (e.g. `{type: 'go'}`). */
  send(msg: Record<string, unknown>): void;
  /** Messages other than ready/done, for interactive fixtures. */
  onMessage(cb: (msg: Record<string, unknown>) => void): void;
}

/** Forks a compiled fixture (CJS, next to the bench in out/) with an IPC channel. */
export function startChild<R>(script: string, args: string[]): Child<R> {
  const proc = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listeners: Array<(m: Record<string, unknown>) => void> = [];
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const done = new Promise<R>((resolve, reject) => {
    let result: { value: R } | null = null;
    proc.on('message', (raw) => {
      const msg = raw as Record<string, unknown>;
      if (msg.type === 'ready') resolveReady();
      else if (msg.type === 'done') result = { value: msg.result as R };
      else for (const l of listeners) l(msg);
    });
    proc.on('error', reject);
    // 'close', not 'exit': on a loaded machine 'exit' can come before the last IPC message
    // (the child's `done`) has been read, which read as "exited with 0 (no result)".
    proc.on('close', (code, signal) => {
      if (result && code === 0) resolve(result.value);
      else reject(new Error(`${script} ${args.join(' ')} exited with ${code ?? signal} ${result ? '' : '(no result)'}`));
    });
  });
  // A child that dies before `ready` must not leave the bench waiting forever.
  done.catch(() => undefined).finally(() => resolveReady());
  return {
    proc,
    ready,
    done,
    send: (msg) => {
      if (proc.connected) proc.send(msg);
    },
    onMessage: (cb) => listeners.push(cb),
  };
}

/** Starts all children, waits until every one is loaded, then releases them together. */
export async function startTogether<R>(children: Array<Child<R>>): Promise<void> {
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.send({ type: 'go' });
}

// ── child side ──

/** Tells the parent this child is loaded; resolves on the parent's `go`. */
export function readyAndWaitForGo(): Promise<void> {
  return new Promise((resolve) => {
    const onMsg = (raw: unknown): void => {
      if ((raw as { type?: string }).type === 'go') {
        process.off('message', onMsg);
        resolve();
      }
    };
    process.on('message', onMsg);
    process.send?.({ type: 'ready' });
  });
}

/** Reports the result and exits once it has been handed to the IPC channel. */
export function finish(result: unknown): void {
  process.send?.({ type: 'done', result }, () => process.exit(0));
}

/** Child entry point wrapper: any failure is printed and exits non-zero. */
export function childMain(fn: () => Promise<void>): void {
  fn().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
