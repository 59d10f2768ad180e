// @worker-thread-only (test/layering.test.ts: the only place synchronous fs calls are allowed)
// The search worker thread: walks, reads and matches off the extension host's loop, so a
// regular expression that backtracks for minutes, or a 1 GB file, cannot freeze it. It
// posts what it finds in batches; search.ts ends it when the time budget is spent.
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import picomatch from 'picomatch';
import { decideFile } from '../../permissions/decide';
import type { GrepMatch, LinkInfo, SearchReply, SearchRequest, SearchTotals } from './protocol';
import { Walker, type WalkEntry } from './walk';

const BINARY_SNIFF_BYTES = 8 * 1024;
const MAX_LINE_CHARS = 300;
const BATCH = 200;
const BATCH_MS = 10;
/** The first batches go out at once: a regex stuck in the next file must not hide them. */
const EAGER_POSTS = 50;
const MAX_TOO_LARGE_NAMED = 5;

parentPort?.on('message', (req: SearchRequest) => {
  try {
    run(req);
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
});

function post(m: SearchReply): void {
  parentPort?.postMessage(m);
}

function run(req: SearchRequest): void {
  const walker = new Walker(req.root);
  const totals: SearchTotals = { found: 0, filesWithMatches: 0, searched: 0, binary: 0, tooLarge: [], tooLargeCount: 0, unreadableFiles: [], unreadableFileCount: 0, timedOut: false };
  let batch: Array<GrepMatch | string> = [];
  let links: Record<string, LinkInfo> | undefined;
  let lastPost = Date.now();
  let posts = 0;
  const flush = () => {
    if (batch.length) {
      post({ type: 'items', items: batch, ...(links ? { links } : {}) });
      posts++;
    }
    batch = [];
    links = undefined;
    lastPost = Date.now();
  };
  /** `link` is worked out only for what is sent (Read rules judge it: docs/permissions.md). */
  const emit = (item: GrepMatch | string, link?: () => [string, LinkInfo] | undefined) => {
    totals.found++;
    if (totals.found <= req.maxResults) {
      batch.push(item);
      const l = link?.();
      if (l) (links ??= {})[l[0]] = l[1];
    }
    if (batch.length >= BATCH) flush();
  };
  const identify = req.op !== 'identities' && req.identify;
  const linkOf = (e: WalkEntry) => (identify ? linkInfo(e) : undefined);
  const tick = () => {
    const now = Date.now();
    if (now > req.deadline) {
      totals.timedOut = true;
      walker.stop();
    } else if (batch.length && (posts < EAGER_POSTS || now - lastPost > BATCH_MS)) flush();
  };

  if (req.op === 'identities') {
    identities(req, emit, tick, totals);
  } else if (req.op === 'list') {
    for (const e of walker.list(req.start)) {
      if (identify && e.dirent.isSymbolicLink()) e.real = walker.linkedFileInside(e.abs);
      emit(listName(e), () => linkOf(e));
    }
  } else if (req.op === 'glob') {
    const isMatch = picomatch(req.pattern, { dot: true });
    const prefix = req.start ? `${req.start}/` : '';
    walker.walk(req.start, (e) => {
      tick();
      if (isMatch(e.rel.slice(prefix.length))) emit(e.rel, () => linkOf(e));
    });
  } else {
    const grep = new FileGrep(req, totals, emit, identify ?? false);
    if (req.only) {
      grep.file({ rel: req.only, abs: path.join(req.root, req.only) });
      flush();
      post({ type: 'done', totals, stats: walker.stats });
      return;
    }
    const only = req.glob ? picomatch(req.glob, { dot: true, basename: !req.glob.includes('/') }) : undefined;
    walker.walk(req.start, (e) => {
      tick();
      if (only && !only(e.rel)) return;
      grep.file(e);
    });
  }
  flush();
  post({ type: 'done', totals, stats: walker.stats });
}

/** What Read rules need to know of a file that may be another under a second name (none for most). */
type Found = Pick<WalkEntry, 'rel' | 'abs' | 'real'> & { dirent?: WalkEntry['dirent'] };

function linkInfo(e: Found, st?: Stats): [string, LinkInfo] | undefined {
  if (e.dirent && !e.dirent.isFile() && e.real === undefined) return undefined;
  let id: string | undefined;
  try {
    const s = st ?? statSync(e.abs);
    if (s.nlink > 1) id = `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
  return id || e.real !== undefined ? [e.rel, { ...(e.real !== undefined ? { real: e.real } : {}), ...(id ? { id } : {}) }] : undefined;
}

/**
 * Every file under the bases that a Read deny or ask rule names, by device:inode, so a hard
 * link to one is judged as the file itself. Files only (links are judged where they point);
 * .gitignore does not apply here: what Read rules name is often ignored (.env).
 */
function identities(req: Extract<SearchRequest, { op: 'identities' }>, emit: (item: string) => void, tick: () => void, totals: SearchTotals): void {
  const rules = { deny: req.rules.deny, ask: req.rules.ask };
  for (const base of req.bases) {
    const walker = new Walker(base, false);
    walker.walk('', (e) => {
      tick();
      if (++totals.searched > req.maxFiles) {
        totals.timedOut = true;
        walker.stop();
      }
      if (!e.dirent.isFile()) return;
      const rel = path.relative(req.root, e.abs).split(path.sep).join('/');
      const verdict = decideFile(rules, 'Read', rel, e.abs)?.verdict;
      if (verdict !== 'deny' && verdict !== 'ask') return;
      try {
        const st = statSync(e.abs);
        emit(`${st.dev}:${st.ino} ${verdict}`);
      } catch { /* gone since the walk read its folder */ }
    });
    if (totals.timedOut) return;
  }
}

function listName(e: WalkEntry): string {
  const d = e.dirent;
  const name = e.rel.slice(e.rel.lastIndexOf('/') + 1);
  return d.isDirectory() ? `${name}/` : d.isSymbolicLink() ? `${name}@` : name;
}

/** Reads one file at a time into a reused buffer and reports its matching lines. */
class FileGrep {
  private buf = Buffer.alloc(256 * 1024);
  private readonly whole: RegExp;
  private readonly line: RegExp;

  /** The open file's stat, for its identity (grep already has it: no second call). */
  private st: Stats | undefined;

  constructor(
    private readonly req: Extract<SearchRequest, { op: 'grep' }>,
    private readonly totals: SearchTotals,
    private readonly emit: (m: GrepMatch, link?: () => [string, LinkInfo] | undefined) => void,
    private readonly identify: boolean,
  ) {
    // `m`: ^ and $ hold at line ends when the whole file is tested first (most files do not match at all).
    this.whole = new RegExp(req.source, `${req.flags}m`);
    this.line = new RegExp(req.source, req.flags);
  }

  file(e: Found): void {
    const text = this.read(e);
    if (text === undefined || !this.whole.test(text)) return;
    const st = this.st;
    let linked: [string, LinkInfo] | undefined | null = null;
    const link = this.identify ? () => (linked === null ? (linked = linkInfo(e, st)) : linked) : undefined;
    let n = 0;
    let had = false;
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      n++;
      let line = text.slice(start, end);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (this.line.test(line)) {
        had = true;
        this.emit({ file: e.rel, line: n, text: line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length} chars)` : line }, link);
      }
      if (end === text.length) break;
      start = end + 1;
    }
    if (had) this.totals.filesWithMatches++;
  }

  private read(e: Pick<WalkEntry, 'rel' | 'abs'>): string | undefined {
    let fd: number;
    try {
      fd = openSync(e.abs, 'r');
    } catch (err) {
      this.totals.unreadableFileCount++;
      if (this.totals.unreadableFiles.length < MAX_TOO_LARGE_NAMED) this.totals.unreadableFiles.push(`${e.rel} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
    try {
      this.st = fstatSync(fd);
      const size = this.st.size;
      if (size > this.req.maxFileBytes) {
        this.totals.tooLargeCount++;
        if (this.totals.tooLarge.length < MAX_TOO_LARGE_NAMED) this.totals.tooLarge.push(`${e.rel} (${Math.round(size / 1048576)} MB)`);
        return undefined;
      }
      if (size + 1 > this.buf.length) this.buf = Buffer.alloc(size + 1);
      let got = 0;
      // +1: a file that grew since fstat is read to its new end as far as the buffer goes.
      for (;;) {
        const r = readSync(fd, this.buf, got, this.buf.length - got, null);
        if (r === 0) break;
        got += r;
        if (got === this.buf.length) break;
      }
      this.totals.searched++;
      const head = this.buf.subarray(0, Math.min(got, BINARY_SNIFF_BYTES));
      if (head.includes(0)) {
        this.totals.binary++;
        return undefined;
      }
      return this.buf.toString('utf8', 0, got);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}
