// A container teammate's file and search tools (docs/containers.md): read_file, write_file,
// edit_file, list_dir, glob and grep act on its clone in its container, never on the user's
// checkout. Reads and searches are commands in the container (its bytes come back base64 or
// as lines); a write goes in through the engine's archive API and is copied into place there.
// What read_file shows and what edit_file makes of a file are the host's own words
// (exec/file-text.ts). The container is the boundary here: paths are kept inside the clone
// lexically, and its `.git` is the clone's own (what comes back is only its branch, fetched
// with hooks off: code.ts).
import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { AgentFs, GlobInput, GrepInput, RemoteSearch } from '../exec/agent-fs';
import { checkEdit, lineLimit, q, readWindow, replaceOnce, type ReadOptions } from '../exec/file-text';
import type { ShellResult } from '../exec/shell';
import { DEFAULT_MAX_WRITE_BYTES, DEFAULT_READ_MAX_BYTES, type WriteResult } from '../exec/workspace-fs';
import { WorkspaceFsError } from '../exec/workspace-fs-error';
import { WORKDIR } from './lifecycle';

/** What the container side offers: a command, and a file put in by the archive API. */
export interface ContainerFiles {
  run(command: string, maxOutputBytes: number): Promise<ShellResult>;
  /** Writes `data` to the absolute path `abs` in the container (parents made); whether it existed. */
  put(abs: string, data: Buffer): Promise<{ created: boolean }>;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const MAX_LIST = 500;
const MAX_GLOB = 500;
const MAX_LINE_CHARS = 300;
const DEFAULT_MAX_RESULTS = 100;

function failed(r: ShellResult, what: string): WorkspaceFsError {
  return new WorkspaceFsError('io', `${what} failed in the container: ${r.error ?? `exit ${r.exitCode ?? r.signal}: ${r.output.trim().slice(-300)}`}`);
}

export class ContainerFs implements AgentFs {
  readonly root = WORKDIR;
  readonly remote: RemoteSearch;

  constructor(private readonly c: ContainerFiles, private readonly maxWriteBytes = DEFAULT_MAX_WRITE_BYTES) {
    this.remote = { listDir: (i) => this.listDir(i), glob: (i) => this.glob(i), grep: (i) => this.grep(i) };
  }

  async resolve(userPath: string): Promise<string> {
    if (typeof userPath !== 'string' || userPath.length === 0) throw new WorkspaceFsError('invalid_path', 'path is empty');
    if (userPath.includes('\0')) throw new WorkspaceFsError('invalid_path', `${q(userPath)} contains a NUL byte`);
    const abs = posix.resolve(WORKDIR, userPath);
    if (abs !== WORKDIR && !abs.startsWith(`${WORKDIR}/`)) throw new WorkspaceFsError('outside_root', `${q(userPath)} is outside the workspace`);
    return abs;
  }

  /** The file's size and first `max` bytes, or why not (missing, a folder, not a file). */
  private async head(userPath: string, abs: string, max: number): Promise<{ size: number; head: Buffer }> {
    const cmd = `f=${quote(abs)}; if [ ! -e "$f" ]; then echo M; elif [ -d "$f" ]; then echo D; elif [ ! -f "$f" ]; then echo O; `
      + `else printf 'F %s\\n' "$(stat -c %s -- "$f")"; head -c ${max} -- "$f" | base64 -w0; fi`;
    const r = await this.c.run(cmd, Math.ceil(max / 3) * 4 + 256);
    if (r.error || r.exitCode !== 0) throw failed(r, `reading ${q(userPath)}`);
    const [status = '', data = ''] = r.output.split('\n');
    if (status === 'M') throw new WorkspaceFsError('not_found', `${q(userPath)} does not exist`);
    if (status === 'D') throw new WorkspaceFsError('not_a_file', `${q(userPath)} is a directory`);
    if (status === 'O') throw new WorkspaceFsError('not_a_file', `${q(userPath)} is not a regular file`);
    return { size: Number(status.slice(2)), head: Buffer.from(data.trim(), 'base64') };
  }

  async readFile(userPath: string, opts: ReadOptions = {}): Promise<string> {
    lineLimit(userPath, opts);
    const maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_READ_MAX_BYTES);
    const abs = await this.resolve(userPath);
    const { size, head } = await this.head(userPath, abs, maxBytes + 1);
    return readWindow(head, size, userPath, opts, maxBytes);
  }

  async writeFile(userPath: string, content: string): Promise<WriteResult> {
    if (typeof content !== 'string') throw new WorkspaceFsError('invalid_input', `${q(userPath)}: content must be a string`);
    const data = Buffer.from(content, 'utf8');
    this.checkSize(data.length, userPath);
    const abs = await this.resolve(userPath);
    const { created } = await this.c.put(abs, data);
    return { path: abs, bytes: data.length, created };
  }

  async editFile(userPath: string, oldText: string, newText: string): Promise<WriteResult> {
    checkEdit(userPath, oldText, newText);
    const abs = await this.resolve(userPath);
    const { size, head } = await this.head(userPath, abs, this.maxWriteBytes + 1);
    this.checkSize(size, userPath);
    const data = Buffer.from(replaceOnce(head, userPath, oldText, newText), 'utf8');
    this.checkSize(data.length, userPath);
    await this.c.put(abs, data);
    return { path: abs, bytes: data.length, created: false };
  }

  private checkSize(bytes: number, userPath: string): void {
    if (bytes > this.maxWriteBytes) throw new WorkspaceFsError('too_large', `${q(userPath)}: ${bytes} bytes is over the ${this.maxWriteBytes}-byte limit for writes and edits`);
  }

  /** The folder searched, relative to the clone ('' = its root). */
  private async rel(userPath: string | null | undefined): Promise<string> {
    return posix.relative(WORKDIR, await this.resolve(userPath || '.'));
  }

  /** Lines of a command in the clone; `what` names it in an error. */
  private async lines(command: string, what: string, okCodes = [0]): Promise<string[]> {
    const r = await this.c.run(`cd ${WORKDIR} && ${command}`, 2 * 1024 * 1024);
    if (r.error || !okCodes.includes(r.exitCode ?? -1)) throw failed(r, what);
    return r.output.split('\n').filter(Boolean);
  }

  /** Entries of a folder, .gitignored ones and `.git` left out, folders first. */
  private async listDir(input: { path?: string | null }): Promise<string> {
    const rel = await this.rel(input.path);
    const dir = quote(rel || '.');
    const names = await this.lines(`test -d ${dir} || { echo "no such folder" >&2; exit 3; }; cd ${dir} && ls -1Ap | grep -vx '.git/' | git check-ignore --stdin --non-matching -v | sed -n 's/^::\\t//p'`, `listing ${q(input.path || '.')}`);
    names.sort((a, b) => Number(!a.endsWith('/')) - Number(!b.endsWith('/')) || (a < b ? -1 : a > b ? 1 : 0));
    const shown = names.slice(0, MAX_LIST);
    const notes = [...(!names.length ? [`${rel || '.'} is empty.`] : []), ...(shown.length < names.length ? [`[Showing ${shown.length} of ${names.length} entries.]`] : [])];
    return [`${rel || '.'}/`, ...shown.map((n) => `  ${n}`), ...notes].join('\n');
  }

  /** Tracked and untracked files of the clone (not .gitignored ones) under `rel`. */
  private files(rel: string): Promise<string[]> {
    return this.lines(`git ls-files -co --exclude-standard -- ${quote(rel || '.')}`, 'listing files');
  }

  private async glob(input: GlobInput): Promise<string> {
    if (!input.pattern.trim() || posix.isAbsolute(input.pattern) || input.pattern.split('/').includes('..')) {
      throw new WorkspaceFsError('outside_root', `pattern ${q(input.pattern)} must be relative to the folder searched, without ".."`);
    }
    const rel = await this.rel(input.path);
    const isMatch = picomatch(input.pattern.replace(/^\.\//, ''), { dot: true });
    const prefix = rel ? `${rel}/` : '';
    const found = (await this.files(rel)).filter((f) => isMatch(f.slice(prefix.length)));
    const shown = found.slice(0, MAX_GLOB);
    if (!found.length) return `No files match ${input.pattern}${rel ? ` under ${rel}` : ''}.`;
    return [...shown, ...(shown.length < found.length ? ['', `[Showing ${shown.length} of ${found.length} paths; ${found.length - shown.length} not shown. Narrow the pattern or path.]`] : [])].join('\n');
  }

  private async grep(input: GrepInput): Promise<string> {
    try {
      new RegExp(input.pattern, input.ignore_case ? 'i' : '');
    } catch (e) {
      throw new WorkspaceFsError('invalid_input', `invalid regular expression: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
    const rel = await this.rel(input.path);
    const max = Math.min(Math.max(1, input.max_results ?? DEFAULT_MAX_RESULTS), 1000);
    // git grep -P: Perl-compatible, the closest to the JavaScript expressions the tool takes; exit 1 = no match.
    const out = await this.lines(`git grep -n -I -P --untracked --no-color ${input.ignore_case ? '-i ' : ''}-e ${quote(input.pattern)} -- ${quote(rel || '.')}`, 'grep', [0, 1]);
    const only = input.glob ? picomatch(input.glob, { dot: true, basename: !input.glob.includes('/') }) : undefined;
    const hits = out.filter((l) => !only || only(l.slice(0, l.indexOf(':'))));
    const shown = hits.slice(0, max).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l));
    if (!hits.length) return `No matches for /${input.pattern}/${input.ignore_case ? 'i' : ''}${rel ? ` under ${rel}` : ''}.`;
    return [...shown, ...(shown.length < hits.length ? ['', `[Showing ${shown.length} of ${hits.length} matches. Narrow the pattern, path or glob, or raise max_results.]`] : [])].join('\n');
  }
}
