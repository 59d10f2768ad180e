// Atomic JSON files: written by temp file + rename so no reader ever sees half a file;
// a file that fails to parse or validate is moved aside and reported, never reset silently.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { ioFault, isUnreadable } from './io-faults';
import { reportProblem } from './problems';

/**
 * Writes `data` to `path` so that readers see either the old or the new content.
 * `beforeRename` may refuse at the last moment (a lock lost while the process was stopped).
 * `fsync`: the content is on disk before the rename, so a crash leaves the old file or the
 * whole new one (the worktree index, which git state is reconciled against).
 * The one atomic writer of the project: every JSON file of the team folder goes through it.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, beforeRename?: () => Promise<void>, opts: { fsync?: boolean } = {}): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}-${HOST_TAG}`;
  const once = async () => {
    await writeTemp(tmp, data, opts.fsync === true);
    await beforeRename?.();
    await rename(tmp, path);
  };
  try {
    ioFault('write', path);
    await once();
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // Parent directory missing: create it once and retry.
      await mkdir(dirname(path), { recursive: true });
      await once();
      return;
    }
    throw err;
  }
}

async function writeTemp(tmp: string, data: string | Uint8Array, fsync: boolean): Promise<void> {
  if (!fsync) return writeFile(tmp, data);
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function writeJsonAtomic(path: string, value: unknown, beforeRename?: () => Promise<void>): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', beforeRename);
}

export class CorruptFileError extends Error {
  constructor(readonly path: string, readonly movedTo: string, detail: string) {
    super(`${path} is corrupt (${detail}); moved aside to ${movedTo}`);
  }
}

/** Moves a bad file out of the way (keeping it for inspection) and reports it. */
export async function quarantine(path: string, detail: string): Promise<string> {
  const movedTo = `${path}.corrupt-${Date.now()}-${randomBytes(2).toString('hex')}`;
  try {
    await rename(path, movedTo);
  } catch (err) {
    // Another process may have moved or replaced it already; nothing to lose here.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  reportProblem({ path, message: `${detail}; moved aside to ${movedTo}` });
  return movedTo;
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

export type JsonRead<T> = { kind: 'ok'; value: T } | { kind: 'missing' } | { kind: 'corrupt'; movedTo: string; detail: string };

/**
 * Reads and validates a JSON file. Missing → `missing`; unparsable or invalid → moved aside,
 * reported, `corrupt`. Never throws for bad content.
 */
export async function readJsonFile<T>(path: string, schema: z.ZodType<T>): Promise<JsonRead<T>> {
  let text: string;
  try {
    ioFault('read', path);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw err;
  }
  let detail: string;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return { kind: 'ok', value: parsed.data };
    detail = `invalid: ${describeZodError(parsed.error)}`;
  } catch (err) {
    detail = `not valid JSON: ${(err as Error).message}`;
  }
  const movedTo = await quarantine(path, detail);
  return { kind: 'corrupt', movedTo, detail };
}

/** Reports a file we may not read (mode 000, a folder in its place) and says so. */
export function reportUnreadable(path: string, err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  reportProblem({ path, message: `cannot be read (${code}): skipped until it can be; fix its permissions` });
}

/**
 * One record among many (a task, a request): valid → the value; missing, corrupt (moved
 * aside) or unreadable (reported) → undefined, so one bad file never fails a whole listing.
 */
export async function readJsonRecord<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    const r = await readJsonFile(path, schema);
    return r.kind === 'ok' ? r.value : undefined;
  } catch (err) {
    if (!isUnreadable(err)) throw err;
    reportUnreadable(path, err);
    return undefined;
  }
}

/** Which machine wrote a temp file: its pid means something only there. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const TEMP = /\.tmp-(\d+)-[0-9a-f]{8}(?:-([0-9a-f]{8}))?$/;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temp files left in `dir` by writers killed between write and rename
 * (`<file>.tmp-<pid>-<hex>-<host>`): only those whose process is gone — at once when written on
 * this machine, else once older than `minAgeMs`, so a live writer's file on another machine
 * sharing the folder (whose pid means nothing here) stays.
 */
export async function sweepStaleTemps(dir: string, minAgeMs = 60_000): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const n of names) {
    const m = TEMP.exec(n);
    if (!m || pidAlive(Number(m[1]))) continue;
    const path = join(dir, n);
    const st = await stat(path).catch(() => null);
    // Written on this machine by a process that is gone (killed with -9): stale at once.
    const ours = m[2] === HOST_TAG;
    if (!st?.isFile() || (!ours && Date.now() - st.mtimeMs < minAgeMs)) continue;
    if (await unlink(path).then(() => true, () => false)) removed.push(path);
  }
  return removed;
}
