// File access for the agents' read_file / write_file / edit_file tools, confined
// to one root (the workspace or a teammate's worktree). Every path is resolved to
// a real path and checked against the real root, so `..`, absolute paths and
// symlinks cannot reach outside. Errors carry the path as the model typed it,
// never the real location of something outside the root.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { isInside, realpathAllowMissing } from './confine';
import { checkEdit, lineLimit, q, readWindow, replaceOnce, type ReadOptions } from './file-text';
import { WorkspaceFsError } from './workspace-fs-error';

export const DEFAULT_READ_MAX_BYTES = 100 * 1024;
export const DEFAULT_MAX_WRITE_BYTES = 5 * 1024 * 1024;

export { WorkspaceFsError, type WorkspaceFsErrorCode } from './workspace-fs-error';
export type { ReadOptions } from './file-text';

export interface WriteResult {
  /** Real absolute path written. */
  path: string;
  bytes: number;
  created: boolean;
}

/**
 * Folders under the root that file tools may read but never write: they decide what the
 * agents themselves may do (roster and leases, mail, approvals, the board, worktree records,
 * git hooks, VS Code settings and tasks such as `toolApproval.bash` or `baseUrl`). Agents
 * change team state through their tools; a user or an approved shell command may edit these.
 */
const PROTECTED: Record<string, string> = {
  '.team': "the team's own state (roster, mail, requests); use the team tools instead",
  '.tasks': 'the task board; use the task tools instead',
  '.worktrees': "the teammates' worktree records and checkouts",
  '.git': "git's own data (hooks run on every commit)",
  '.vscode': "VS Code's workspace settings and tasks, which decide what agents may do",
};

/** A write a WorkspaceFs made, for its observer (the change log, src/core/watch/change-log.ts). */
export interface WriteEvent {
  /** Real absolute path written. */
  abs: string;
  tool: 'write_file' | 'edit_file' | 'revert';
  /** Bytes before (null: no file), or just the size when it was too large to read. */
  before: Buffer | { size: number } | null;
  after: Buffer | null;
}

/** Hears every completed write; its failure never fails the write (which already happened). */
export type WriteObserver = (w: WriteEvent) => Promise<void>;

/** Content above this is not read just to be observed. */
const OBSERVE_MAX_BYTES = 1024 * 1024;

export class WorkspaceFs {
  private realRoot: Promise<string> | undefined;

  constructor(
    readonly root: string,
    private readonly maxWriteBytes = DEFAULT_MAX_WRITE_BYTES,
    private readonly observer?: WriteObserver,
  ) {}

  private async observed(w: WriteEvent): Promise<void> {
    await this.observer?.(w).catch(() => undefined);
  }

  /** The real absolute path for `userPath`, which must stay inside the root. */
  async resolve(userPath: string): Promise<string> {
    if (typeof userPath !== 'string' || userPath.length === 0) {
      throw new WorkspaceFsError('invalid_path', 'path is empty');
    }
    if (userPath.includes('\0')) throw new WorkspaceFsError('invalid_path', `${q(userPath)} contains a NUL byte`);
    const root = await this.getRealRoot();
    const lexical = path.resolve(root, userPath);
    // An absolute path may be spelled through the root as configured (a symlink itself).
    if (!isInside(root, lexical) && !isInside(path.resolve(this.root), path.resolve(this.root, userPath))) {
      throw new WorkspaceFsError('outside_root', `${q(userPath)} is outside the workspace`);
    }
    let real: string;
    try {
      real = await realpathAllowMissing(lexical);
    } catch (e) {
      throw fsError(e, userPath);
    }
    if (!isInside(root, real)) {
      throw new WorkspaceFsError('outside_root', `${q(userPath)} is a symbolic link (or lies under one) that points outside the workspace`);
    }
    return real;
  }

  /** `resolve`, refusing the protected folders (the real path counts, so a symlink to one is refused too). */
  private async resolveForWrite(userPath: string): Promise<string> {
    const abs = await this.resolve(userPath);
    const first = path.relative(await this.getRealRoot(), abs).split(path.sep)[0]!.toLowerCase();
    const why = Object.hasOwn(PROTECTED, first) ? PROTECTED[first] : undefined;
    if (why) throw new WorkspaceFsError('protected', `${q(userPath)} is inside ${first}/, which file tools do not write: ${why}`);
    return abs;
  }

  /** Text of a file, capped at `maxBytes` and optionally at `limit` lines, with a note when cut. */
  async readFile(userPath: string, opts: ReadOptions = {}): Promise<string> {
    lineLimit(userPath, opts);
    const maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_READ_MAX_BYTES);
    const abs = await this.resolve(userPath);
    const st = await this.fileStat(abs, userPath);
    let buf: Buffer;
    try {
      buf = await readHead(abs, Math.min(maxBytes, st.size) + 1);
    } catch (e) {
      throw fsError(e, userPath);
    }
    return readWindow(buf, st.size, userPath, opts, maxBytes);
  }

  /** Creates or replaces a file atomically, creating missing parent directories. */
  async writeFile(userPath: string, content: string): Promise<WriteResult> {
    if (typeof content !== 'string') throw new WorkspaceFsError('invalid_input', `${q(userPath)}: content must be a string`);
    const bytes = Buffer.byteLength(content, 'utf8');
    this.checkSize(bytes, userPath);
    const abs = await this.resolveForWrite(userPath);
    const existing = await stat(abs).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw fsError(e, userPath);
    });
    if (existing && !existing.isFile()) throw notAFile(userPath, existing);
    let before: WriteEvent['before'] = null;
    if (this.observer && existing) {
      before = existing.size > OBSERVE_MAX_BYTES ? { size: existing.size } : await readFile(abs).catch(() => ({ size: existing.size }));
    }
    try {
      await mkdir(path.dirname(abs), { recursive: true });
      await atomicWrite(abs, content, existing?.mode);
    } catch (e) {
      throw fsError(e, userPath);
    }
    if (this.observer) await this.observed({ abs, tool: 'write_file', before, after: Buffer.from(content, 'utf8') });
    return { path: abs, bytes, created: !existing };
  }

  /** Replaces the one occurrence of `oldText`; refuses when it is missing or ambiguous. */
  async editFile(userPath: string, oldText: string, newText: string): Promise<WriteResult> {
    checkEdit(userPath, oldText, newText);
    const abs = await this.resolveForWrite(userPath);
    const st = await this.fileStat(abs, userPath);
    this.checkSize(st.size, userPath);
    let buf: Buffer;
    try {
      buf = await readFile(abs);
    } catch (e) {
      throw fsError(e, userPath);
    }
    const updated = replaceOnce(buf, userPath, oldText, newText);
    const bytes = Buffer.byteLength(updated, 'utf8');
    this.checkSize(bytes, userPath);
    try {
      await atomicWrite(abs, updated, st.mode);
    } catch (e) {
      throw fsError(e, userPath);
    }
    if (this.observer) await this.observed({ abs, tool: 'edit_file', before: buf, after: Buffer.from(updated, 'utf8') });
    return { path: abs, bytes, created: false };
  }

  private getRealRoot(): Promise<string> {
    this.realRoot ??= realpath(this.root).catch((e: unknown) => {
      this.realRoot = undefined; // the root may appear later; do not cache the failure
      throw new WorkspaceFsError('io', `the workspace folder is not accessible (${(e as NodeJS.ErrnoException).code ?? e})`);
    });
    return this.realRoot;
  }

  private async fileStat(abs: string, userPath: string): Promise<Stats> {
    let st: Stats;
    try {
      st = await stat(abs);
    } catch (e) {
      throw fsError(e, userPath);
    }
    if (!st.isFile()) throw notAFile(userPath, st);
    return st;
  }

  private checkSize(bytes: number, userPath: string): void {
    if (bytes > this.maxWriteBytes) {
      throw new WorkspaceFsError('too_large', `${q(userPath)}: ${bytes} bytes is over the ${this.maxWriteBytes}-byte limit for writes and edits`);
    }
  }
}

async function readHead(abs: string, max: number): Promise<Buffer> {
  const fh = await open(abs, 'r');
  try {
    const buf = Buffer.allocUnsafe(max);
    let got = 0;
    while (got < max) {
      const { bytesRead } = await fh.read(buf, got, max - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

/**
 * Temp file + rename in the same directory: readers never see half a file, and
 * rename replaces a symlink at the destination instead of writing through it.
 * 'wx' refuses to open an existing path, so a planted symlink is not followed.
 */
/**
 * Writes through a temporary file and a rename. On Linux the folder is pinned first (opened,
 * then reached as /proc/self/fd/<n>), so another process swapping it, or a parent, for a
 * symlink after the check cannot redirect the write; the pinned folder itself is checked.
 */
async function atomicWrite(abs: string, data: string, mode?: number): Promise<void> {
  const dir = path.dirname(abs);
  const name = `.${path.basename(abs).slice(0, 64)}.${randomBytes(6).toString('hex')}.tmp`;
  const pinned = process.platform === 'linux' ? await open(dir, 'r') : undefined;
  try {
    const base = pinned ? `/proc/self/fd/${pinned.fd}` : dir;
    if (pinned && (await realpath(base)) !== dir) {
      throw new WorkspaceFsError('outside_root', 'the folder changed into a link to outside the workspace while writing');
    }
    const tmp = path.join(base, name);
    try {
      await writeFile(tmp, data, { flag: 'wx' });
      if (mode !== undefined) await chmod(tmp, mode & 0o7777); // keep e.g. the executable bit
      await rename(tmp, path.join(base, path.basename(abs)));
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
  } finally {
    await pinned?.close();
  }
}

function notAFile(userPath: string, st: Stats): WorkspaceFsError {
  return new WorkspaceFsError('not_a_file', `${q(userPath)} is ${st.isDirectory() ? 'a directory' : 'not a regular file'}`);
}

/** Maps an fs error to one that names the user's path and leaks no absolute path. */
function fsError(e: unknown, userPath: string): WorkspaceFsError {
  if (e instanceof WorkspaceFsError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT': return new WorkspaceFsError('not_found', `${q(userPath)} does not exist`);
    case 'ENOTDIR': return new WorkspaceFsError('invalid_path', `${q(userPath)}: a parent of it is a file, not a directory`);
    case 'EISDIR': return new WorkspaceFsError('not_a_file', `${q(userPath)} is a directory`);
    case 'ELOOP': return new WorkspaceFsError('invalid_path', `${q(userPath)}: too many levels of symbolic links`);
    case 'ENAMETOOLONG': return new WorkspaceFsError('invalid_path', `${q(userPath)}: name too long`);
    case 'EACCES': case 'EPERM': return new WorkspaceFsError('io', `${q(userPath)}: permission denied`);
    case 'ENOSPC': return new WorkspaceFsError('io', `${q(userPath)}: no space left on device`);
    default: return new WorkspaceFsError('io', `${q(userPath)}: ${code ?? 'I/O error'}`);
  }
}
