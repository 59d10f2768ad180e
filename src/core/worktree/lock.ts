// A small cross-process mutex: a lock file created with O_EXCL holding the owner's pid.
// A lock whose pid is dead is stale and broken; breaking goes through a second O_EXCL file
// so two waiters that both saw the same stale lock cannot each delete a fresh one.
// (Meant to be replaced by a shared lock later; the API is just `withFileLock`.)
import { randomBytes } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { WorktreeError } from './errors';

export interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

interface LockBody {
  pid: number;
  token: string;
  ts: number;
}

// Same-process callers queue here first: the pid in the file cannot tell them apart.
const inProcess = new Map<string, Promise<unknown>>();

// A lock file younger than this may still be being written (open and write are two steps),
// so an unreadable one is only treated as stale after it.
const UNREADABLE_GRACE_MS = 2_000;

export async function withFileLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const prev = inProcess.get(path) ?? Promise.resolve();
  const run = prev.catch(() => undefined).then(async () => {
    const token = await acquire(path, opts.timeoutMs ?? 30_000);
    try {
      return await fn();
    } finally {
      await release(path, token);
    }
  });
  const tail = run.catch(() => undefined);
  inProcess.set(path, tail);
  void tail.then(() => { if (inProcess.get(path) === tail) inProcess.delete(path); });
  return run;
}

async function acquire(path: string, timeoutMs: number): Promise<string> {
  const token = randomBytes(8).toString('hex');
  const body = JSON.stringify({ pid: process.pid, token, ts: Date.now() } satisfies LockBody);
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    try {
      await writeFile(path, body, { flag: 'wx' });
      return token;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await inspect(path);
    if (holder.stale) await breakStale(path, holder.raw);
    else if (Date.now() > deadline) {
      throw new WorktreeError('locked', `worktrees are being changed by another process (pid ${holder.pid ?? 'unknown'}); lock file ${path}`);
    } else {
      await sleep(delay);
      delay = Math.min(delay * 2, 100);
    }
  }
}

async function inspect(path: string): Promise<{ stale: boolean; raw: string | undefined; pid?: number }> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch {
    return { stale: false, raw: undefined }; // released meanwhile: just retry
  }
  let parsed: Partial<LockBody> | undefined;
  try { parsed = JSON.parse(raw) as Partial<LockBody>; } catch { parsed = undefined; }
  if (typeof parsed?.pid !== 'number') {
    const age = await ageMs(path);
    return { stale: age !== undefined && age > UNREADABLE_GRACE_MS, raw };
  }
  // Our own pid in a file we do not hold (the in-process queue guarantees that) can only be
  // a dead process whose pid we inherited.
  const stale = parsed.pid === process.pid || !isAlive(parsed.pid);
  return { stale, raw, pid: parsed.pid };
}

async function breakStale(path: string, raw: string | undefined): Promise<void> {
  const breaker = `${path}.break`;
  try {
    await writeFile(breaker, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A breaker left by a crash mid-break would block everyone forever.
    const age = await ageMs(breaker);
    if (age !== undefined && age > 10_000) await unlink(breaker).catch(() => undefined);
    await sleep(10);
    return;
  }
  try {
    const now = await readFile(path, 'utf8').catch(() => undefined);
    if (now === raw) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

async function release(path: string, token: string): Promise<void> {
  try {
    const body = JSON.parse(await readFile(path, 'utf8')) as Partial<LockBody>;
    if (body.token === token) await unlink(path);
  } catch {
    // Already gone (broken by someone who wrongly judged us dead): nothing to release.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function ageMs(path: string): Promise<number | undefined> {
  try { return Date.now() - (await stat(path)).mtimeMs; } catch { return undefined; }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
