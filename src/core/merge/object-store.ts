// The merge queue's reads and writes of git objects without a git process per call
// (docs/file-formats.md, "Merge queue"; bench/README.md, merge.queue_ms): one long-lived
// `git cat-file --batch` per run of the queue answers "what commit is this branch at" and
// "what is in this tree", and the merge commit is written into the object store from here as
// git writes a loose object (zlib-deflated "commit <size>\0<body>", named by its hash). A
// repository this cannot serve — commits to be signed (commit.gpgSign: `commit-tree -S`), a
// commit encoding other than UTF-8, a fixed date in the environment, a shared-permissions
// repository — gets its commit from `git commit-tree` (`canWrite` false).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { WorktreeError } from '../worktree/errors';
import { gitEnv, type GitEnvOptions } from '../worktree/git';

const deflateAsync = promisify(deflate);

export interface GitObject {
  oid: string;
  type: string;
  data: Buffer;
}

interface Waiter {
  resolve(o: GitObject | null): void;
  reject(e: Error): void;
}

/** A long-lived `git cat-file --batch` in `cwd`: objects and ref names in, contents out, in order. */
export class ObjectReader {
  private readonly child: ChildProcess;
  private readonly waiting: Waiter[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private failed: Error | null = null;

  constructor(cwd: string, ctx: GitEnvOptions = {}) {
    this.child = spawn('git', ['cat-file', '--batch'], { cwd, env: gitEnv(ctx.env ?? process.env), stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.on('data', (b: Buffer) => this.take(b));
    this.child.stdin!.on('error', () => undefined); // reported by 'exit'
    this.child.once('error', (e) => this.fail(new WorktreeError('git-failed', `could not start git cat-file: ${e.message}`)));
    this.child.once('exit', () => this.fail(new WorktreeError('git-failed', 'git cat-file ended unexpectedly')));
  }

  /** The object `name` (an oid or a full ref name) names, null when there is none. */
  read(name: string): Promise<GitObject | null> {
    if (this.failed) return Promise.reject(this.failed);
    if (/[\n\r\0]/.test(name)) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin!.write(`${name}\n`);
    });
  }

  /** The commit a full ref name (`refs/heads/x`) points at, null when it does not exist. */
  async commitOf(ref: string): Promise<string | null> {
    const o = await this.read(`${ref}^{commit}`);
    return o?.type === 'commit' ? o.oid : null;
  }

  dispose(): void {
    this.fail(new WorktreeError('git-failed', 'the object reader was closed'));
  }

  // "<oid> <type> <size>\n<contents>\n" per object, "<name> missing\n" (or "ambiguous") when none.
  private take(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const nl = this.buf.indexOf(10);
      if (nl < 0) return;
      const header = this.buf.subarray(0, nl).toString('utf8').split(' ');
      if (header.length !== 3) {
        this.buf = this.buf.subarray(nl + 1);
        this.waiting.shift()?.resolve(null);
        continue;
      }
      const size = Number(header[2]);
      if (this.buf.length < nl + 1 + size + 1) return;
      const data = Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size));
      this.buf = this.buf.subarray(nl + 1 + size + 1);
      this.waiting.shift()?.resolve({ oid: header[0]!, type: header[1]!, data });
    }
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    for (const w of this.waiting.splice(0)) w.reject(err);
  }
}

interface TreeEntry {
  mode: string;
  oid: string;
}

/** A tree's entries by name; `hashBytes` 20 (SHA-1) or 32 (SHA-256). */
function parseTree(data: Buffer, hashBytes: number): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(32, i);
    const nul = data.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 1 + hashBytes > data.length) throw new WorktreeError('git-failed', 'a tree object could not be read');
    out.set(data.subarray(sp + 1, nul).toString('utf8'), { mode: data.subarray(i, sp).toString('ascii'), oid: data.subarray(nul + 1, nul + 1 + hashBytes).toString('hex') });
    i = nul + 1 + hashBytes;
  }
  return out;
}

const isTree = (e: TreeEntry | undefined): boolean => e?.mode === '40000';

/**
 * The files that differ between trees `a` and `b` (as `git diff-tree -r --no-renames` lists
 * them), and which of those `b` adds. Only subtrees whose ids differ are read.
 */
export async function treeDiff(reader: ObjectReader, a: string, b: string, hashBytes: number): Promise<{ files: string[]; added: string[] }> {
  const files: string[] = [];
  const added: string[] = [];
  const entries = async (oid: string | null): Promise<Map<string, TreeEntry>> => {
    if (!oid) return new Map();
    const o = await reader.read(oid);
    if (o?.type !== 'tree') throw new WorktreeError('git-failed', `tree ${oid} could not be read`);
    return parseTree(o.data, hashBytes);
  };
  const walk = async (x: string | null, y: string | null, prefix: string): Promise<void> => {
    const [ex, ey] = await Promise.all([entries(x), entries(y)]);
    for (const name of new Set([...ex.keys(), ...ey.keys()])) {
      const [l, r] = [ex.get(name), ey.get(name)];
      if (l && r && l.oid === r.oid && l.mode === r.mode) continue;
      const path = prefix + name;
      if (isTree(l) || isTree(r)) {
        // A folder on either side is walked (its files deleted or added); a file on the other is one change.
        await walk(isTree(l) ? l!.oid : null, isTree(r) ? r!.oid : null, `${path}/`);
        if (l && !isTree(l)) files.push(path);
        if (r && !isTree(r)) { files.push(path); added.push(path); }
        continue;
      }
      files.push(path);
      if (!l) added.push(path);
    }
  };
  await walk(a, b, '');
  const order = (s: string[]) => [...new Set(s)].sort();
  return { files: order(files), added: order(added) };
}

/** What writing a commit object needs from the repository; `canWrite` false: use `git commit-tree`. */
export interface CommitSetup {
  canWrite: boolean;
  /** commit.gpgSign is on: `git commit-tree -S` makes the commit (commit-tree alone does not sign). */
  sign: boolean;
  objectsDir: string;
  format: 'sha1' | 'sha256';
  author: string;
  committer: string;
}

/** Ident "Name <email> <seconds> <+hhmm>" of `git var`, with the time set to now. */
function identNow(ident: string): string {
  const m = /^(.*>) \d+ [+-]\d{4}$/.exec(ident.trim());
  const name = m ? m[1]! : ident.trim();
  const off = -new Date().getTimezoneOffset();
  const abs = Math.abs(off);
  const tz = `${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${name} ${Math.floor(Date.now() / 1000)} ${tz}`;
}

const TRUE = /^(true|yes|on|1)$/i;

/** Reads `git var -l` output (config, then GIT_*_IDENT lines) into a CommitSetup. */
export function commitSetup(varList: string, objectsDir: string, format: string, env: NodeJS.ProcessEnv): CommitSetup {
  const v = new Map<string, string>();
  for (const line of varList.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) v.set(line.slice(0, eq).toLowerCase(), line.slice(eq + 1));
  }
  const encoding = v.get('i18n.commitencoding');
  const shared = v.get('core.sharedrepository');
  const sign = TRUE.test(v.get('commit.gpgsign') ?? '');
  const canWrite = (format === 'sha1' || format === 'sha256')
    && !sign
    && (!encoding || /^utf-?8$/i.test(encoding))
    && (!shared || /^(false|umask|0|no|off)$/i.test(shared))
    && !env.GIT_AUTHOR_DATE && !env.GIT_COMMITTER_DATE
    && !!v.get('git_author_ident') && !!v.get('git_committer_ident');
  return { canWrite, sign, objectsDir, format: format === 'sha256' ? 'sha256' : 'sha1', author: v.get('git_author_ident') ?? '', committer: v.get('git_committer_ident') ?? '' };
}

/** Writes the commit of `tree` with `parents` and `message` as a loose object; returns its id. */
export async function writeCommit(s: CommitSetup, tree: string, parents: string[], message: string): Promise<string> {
  const body = Buffer.from([
    `tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${identNow(s.author)}`, `committer ${identNow(s.committer)}`, '', `${message.replace(/\n*$/, '')}\n`,
  ].join('\n'), 'utf8');
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`, 'ascii'), body]);
  const oid = createHash(s.format).update(object).digest('hex');
  const dir = join(s.objectsDir, oid.slice(0, 2));
  const path = join(dir, oid.slice(2));
  const tmp = join(s.objectsDir, `tmp_obj_agent_teams_${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, await deflateAsync(object), { mode: 0o444 });
  try {
    await mkdir(dir, { recursive: true });
    // As git does: linked into place (an object already there is the same object).
    await link(tmp, path).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'EEXIST') throw e; });
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return oid;
}
