// The record of every file an agent wrote through its file tools (docs/file-formats.md,
// "Changes"): one line per write in `.team/changes/<agent>.jsonl`, the content before and
// after in `.team/changes/blobs/<sha256>` when it is text of at most MAX_STORED_BYTES.
// Lines are appended with O_NOFOLLOW (jsonl.ts) and blobs written by temp file + rename, so a
// symbolic link planted in the folder is replaced or refused, never written through. Any
// process (VS Code windows, the CLI) reads and appends the same files.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ChangeRecord, type ChangeSide } from '../../shared/schemas/changes';
import type { WriteEvent } from '../exec/workspace-fs';
import { appendJsonLine } from '../team/jsonl';
import { NAME_RE } from '../util/names';
import { scanLines } from './transcript-reader';

/** Larger content is recorded by hash and size only. */
export const MAX_STORED_BYTES = 1024 * 1024;

export { ChangeRecord, type ChangeSide };

export type { WriteEvent } from '../exec/workspace-fs';

export class ChangeLog {
  readonly dir: string;
  readonly blobs: string;

  constructor(readonly teamRoot: string) {
    this.dir = path.join(teamRoot, '.team', 'changes');
    this.blobs = path.join(this.dir, 'blobs');
  }

  file(agent: string): string {
    if (!NAME_RE.test(agent)) throw new Error(`invalid agent name ${JSON.stringify(agent)}`);
    return path.join(this.dir, `${agent}.jsonl`);
  }

  /** Records one write; `root` is the real folder the writer is confined to. */
  async record(agent: string, root: string, w: WriteEvent, extra: { task: number | null; reverts?: string; realTeamRoot: string }): Promise<ChangeRecord> {
    await this.ensureDirs();
    const rec: ChangeRecord = {
      id: `chg_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`,
      agent, ts: Date.now() / 1000, task: extra.task, tool: w.tool,
      root: path.relative(extra.realTeamRoot, root).split(path.sep).join('/'),
      path: path.relative(root, w.abs).split(path.sep).join('/'),
      before: w.before === null ? null : await this.side(w.before),
      after: w.after === null ? null : await this.side(w.after),
      ...(extra.reverts ? { reverts: extra.reverts } : {}),
    };
    await appendJsonLine(this.file(agent), rec);
    return rec;
  }

  /** Every valid record (of one agent, or all), oldest first; damaged lines are counted. */
  async list(agent?: string): Promise<{ changes: ChangeRecord[]; damaged: number }> {
    let names: string[];
    try {
      names = agent ? [`${agent}.jsonl`] : (await readdir(this.dir)).filter((n) => n.endsWith('.jsonl'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { changes: [], damaged: 0 };
      throw err;
    }
    const changes: ChangeRecord[] = [];
    let damaged = 0;
    for (const n of names) {
      if (!NAME_RE.test(n.slice(0, -'.jsonl'.length))) continue;
      await scanLines(path.join(this.dir, n), 0, (l) => {
        const r = 'bad' in l ? null : ChangeRecord.safeParse(l.value);
        if (r?.success) changes.push(r.data);
        else damaged++;
      }).catch(() => damaged++);
    }
    changes.sort((a, b) => a.ts - b.ts);
    return { changes, damaged };
  }

  /** The stored content of one side, or null when it was not stored (or the blob is gone). */
  async content(side: ChangeSide | null): Promise<Buffer | null> {
    if (!side?.stored || !side.sha256) return null;
    let fh;
    try {
      fh = await open(path.join(this.blobs, side.sha256), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return null;
    }
    try {
      const buf = await fh.readFile();
      return sha256(buf) === side.sha256 ? buf : null;
    } finally {
      await fh.close();
    }
  }

  private async side(data: Buffer | { size: number }): Promise<ChangeSide> {
    if (!Buffer.isBuffer(data)) return { bytes: data.size, stored: false, why: 'too_large' };
    const hash = sha256(data);
    const base = { sha256: hash, bytes: data.length };
    if (data.length > MAX_STORED_BYTES) return { ...base, stored: false, why: 'too_large' };
    if (!isText(data)) return { ...base, stored: false, why: 'binary' };
    const target = path.join(this.blobs, hash);
    if (await lstat(target).then((s) => s.isFile(), () => false)) return { ...base, stored: true };
    // Content-addressed: whoever writes it writes the same bytes. Rename replaces a planted link.
    const tmp = path.join(this.blobs, `.${hash}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(tmp, data, { flag: 'wx' });
      await rename(tmp, target);
    } catch {
      await unlink(tmp).catch(() => undefined);
      return { ...base, stored: false, why: 'not_written' };
    }
    return { ...base, stored: true };
  }

  private async ensureDirs(): Promise<void> {
    for (const d of [path.join(this.teamRoot, '.team'), this.dir, this.blobs]) {
      const st = await lstat(d).catch(() => null);
      if (st?.isSymbolicLink()) throw new Error(`${d} is a symbolic link: change records are not written through links`);
      if (!st) await mkdir(d).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    }
  }
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Text we can show and restore exactly: no NUL, valid UTF-8. */
export function isText(buf: Buffer): boolean {
  if (buf.subarray(0, 8192).includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}
