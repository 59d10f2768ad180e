// Cross-process mutual exclusion with an O_EXCL lock file holding the owner's pid and host:
// the one file lock of the project (roster, requests, task board, worktree index). A lock
// whose owner died (kill -9) is taken over at once on the same host, or after `staleMs` when
// the owner is elsewhere. Within one process, waiters queue in memory first so they do not
// spin against each other.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { ioFault } from './io-faults';
import { isProcessAlive, procStat } from './process-alive';

const HOST = hostname();
// One queue per process even if this module is loaded twice (two bundles), so waiters in
// this process never spin against each other.
const QUEUE = Symbol.for('agent-teams.file-lock.queue');
const inProcess: Map<string, Promise<unknown>> = ((globalThis as Record<symbol, unknown>)[QUEUE] ??= new Map()) as Map<string, Promise<unknown>>;

/** The lock stayed taken by a live owner for the whole timeout. */
export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string, readonly holderPid: number | undefined) {
    super(`timed out waiting for lock ${lockPath}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tryCreate(lockPath: string, token: string): Promise<boolean> {
  let fh;
  try {
    ioFault('write', lockPath);
    fh = await open(lockPath, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    try {
      await fh.writeFile(JSON.stringify({ pid: process.pid, host: HOST, token }));
      // A full disk or quota may be reported only now, after the content (at close: NFS, ext4).
      ioFault('write', lockPath);
    } finally {
      await fh.close();
    }
    return true;
  } catch (err) {
    // Made by us and not taken: left, it would stand as the lock of a live process that nobody
    // holds, and every later taker would wait for it until its timeout, until a restart.
    await unlink(lockPath).catch(() => undefined);
    throw err;
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<string | null> {
  let text: string;
  let mtime: number;
  try {
    [text, mtime] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath).then((s) => s.mtimeMs)]);
  } catch {
    return null; // gone already: retry the create
  }
  try {
    const owner = JSON.parse(text) as { pid: number; host?: string };
    // No host: written on this machine by the earlier worktree lock format.
    if (owner.host === HOST || owner.host === undefined) {
      if (!isProcessAlive(owner.pid)) return text;
      // Stopped (SIGSTOP, Ctrl-Z) while holding it: it would hold every other host up for as
      // long as it is stopped. Its writes check the lock is still theirs (LockLostError).
      return Date.now() - mtime > STOPPED_STALE_MS && (await isStopped(owner.pid)) ? text : null;
    }
  } catch {
    // Half-written by an owner that died between create and write: judge by age.
    return Date.now() - mtime > 1000 ? text : null;
  }
  return Date.now() - mtime > staleMs ? text : null;
}

/** How long a stopped process may hold a lock before others take it (locks are held for milliseconds). */
const STOPPED_STALE_MS = 2000;

/** Whether `pid` is stopped by a signal (state T or t; false without /proc). */
async function isStopped(pid: number): Promise<boolean> {
  const state = (await procStat(pid))?.state;
  return state === 'T' || state === 't';
}

/** The lock was taken from this process while it was stopped: its change must not be written. */
export class LockLostError extends Error {
  constructor(readonly lockPath: string) {
    super(`lost lock ${lockPath} while stopped; the change was not written`);
  }
}

/** Checks the lock is still ours before a write made under it; throws LockLostError if not. */
export type LockCheck = () => Promise<void>;

/** A breaker left by a process that died while breaking (breaking takes milliseconds). */
const BREAKER_STALE_MS = 5000;

/**
 * Removes a stale lock only if it is still the same stale lock we inspected. Between reading
 * a lock and judging its owner dead, the owner may have released it and a live process taken
 * it: so the lock is read again while holding `<lock>.break`, and removed only if unchanged.
 * Nothing else replaces a stale lock meanwhile: its dead owner will not release it, creating
 * fails while it exists, and other breakers wait for the breaker.
 */
async function breakStale(lockPath: string, staleText: string): Promise<void> {
  const breaker = `${lockPath}.break`;
  const token = randomBytes(8).toString('hex');
  if (!(await tryCreate(breaker, token))) {
    const left = await isStale(breaker, BREAKER_STALE_MS);
    if (left !== null) await unlinkIfSame(breaker, left);
    return;
  }
  try {
    await unlinkIfSame(lockPath, staleText);
  } finally {
    await unlinkIfSame(breaker, undefined, token);
  }
}

/** Unlinks `path` if it still holds `text` (or, with `token`, a record with that token). */
async function unlinkIfSame(path: string, text: string | undefined, token?: string): Promise<void> {
  const now = await readFile(path, 'utf8').catch(() => null);
  if (now === null) return;
  const same = token !== undefined ? now.includes(`"token":"${token}"`) : now === text;
  if (same) await unlink(path).catch(() => undefined);
}

async function acquire(lockPath: string, staleMs: number, timeoutMs: number): Promise<string> {
  const token = randomBytes(8).toString('hex');
  const deadline = Date.now() + timeoutMs;
  let wait = 1;
  for (let i = 0; ; i++) {
    if (await tryCreate(lockPath, token)) return token;
    if (i % 4 === 3) {
      const stale = await isStale(lockPath, staleMs);
      if (stale !== null) await breakStale(lockPath, stale);
    }
    if (Date.now() > deadline) throw new LockTimeoutError(lockPath, await holderPid(lockPath));
    await sleep(Math.random() * wait);
    wait = Math.min(wait * 2, 4);
  }
}

async function holderPid(lockPath: string): Promise<number | undefined> {
  try {
    const pid = (JSON.parse(await readFile(lockPath, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  // Broken while this process was stopped: the lock there now is another's.
  await unlinkIfSame(lockPath, undefined, token);
}

export interface LockOptions {
  staleMs?: number;
  timeoutMs?: number;
}

/**
 * Runs `fn` holding the lock at `lockPath` (in this process and across processes). `fn` gets
 * a check to call before each write it makes under the lock (see LockLostError).
 */
export async function withFileLock<T>(lockPath: string, fn: (check: LockCheck) => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const prev = inProcess.get(lockPath) ?? Promise.resolve();
  const run = prev.then(async () => {
    const token = await acquire(lockPath, opts.staleMs ?? 30_000, opts.timeoutMs ?? 30_000);
    const check = async () => {
      const now = await readFile(lockPath, 'utf8').catch(() => '');
      if (!now.includes(`"token":"${token}"`)) throw new LockLostError(lockPath);
    };
    try {
      return await fn(check);
    } finally {
      await release(lockPath, token);
    }
  });
  const tail = run.catch(() => undefined);
  inProcess.set(lockPath, tail);
  void tail.then(() => {
    if (inProcess.get(lockPath) === tail) inProcess.delete(lockPath);
  });
  return run;
}
