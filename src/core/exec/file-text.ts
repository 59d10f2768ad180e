// What read_file shows of a file's bytes and what edit_file makes of its text: pure, so the
// host's file tools (workspace-fs.ts) and a container teammate's (core/container/container-fs.ts)
// answer the model in the same words.
import { incompleteUtf8Tail } from './output-buffer';
import { WorkspaceFsError } from './workspace-fs-error';

/** Same heuristic as git and grep: a NUL early on means binary. */
const BINARY_SNIFF_BYTES = 8 * 1024;

export interface ReadOptions {
  /** Return at most this many lines (models send null for "no limit"). */
  limit?: number | null;
  /** Start at this line (1 = the first). */
  offset?: number | null;
  maxBytes?: number;
}

/** JSON quoting shows the path exactly, control characters included. */
export function q(userPath: string): string {
  return JSON.stringify(userPath);
}

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function binaryError(userPath: string): WorkspaceFsError {
  return new WorkspaceFsError('binary', `${q(userPath)} looks like a binary file (it contains NUL bytes); only text files can be read or edited`);
}

/** The line limit asked for, checked. */
export function lineLimit(userPath: string, opts: ReadOptions): number | undefined {
  const limit = opts.limit ?? undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new WorkspaceFsError('invalid_input', `${q(userPath)}: limit must be a positive whole number of lines, got ${limit}`);
  }
  return limit;
}

/**
 * What read_file returns for `head` — the file's first bytes, up to `maxBytes` + 1 of a file
 * of `size` bytes — with `opts`' line window and a note when cut.
 */
export function readWindow(head: Buffer, size: number, userPath: string, opts: ReadOptions, maxBytes: number): string {
  const limit = lineLimit(userPath, opts);
  let buf = head;
  if (isBinary(buf)) throw binaryError(userPath);
  const byteCut = buf.length > maxBytes;
  if (byteCut) buf = buf.subarray(0, maxBytes - incompleteUtf8Tail(buf.subarray(0, maxBytes)));
  const text = buf.toString('utf8');
  const sizeNote = `file is ${size} bytes, showing the first ${buf.length}`;

  const from = Math.max(1, Math.floor(opts.offset ?? 1)) - 1;
  if (limit !== undefined || from > 0) {
    const lines = text.split('\n');
    if (!byteCut && lines[lines.length - 1] === '') lines.pop(); // a final newline ends a line, not starts one
    if (from >= lines.length) return `... (no line ${from + 1}: ${byteCut ? `the first ${buf.length} bytes hold` : 'the file has'} ${lines.length} lines)`;
    const end = limit !== undefined ? Math.min(lines.length, from + limit) : lines.length;
    const shown = lines.slice(from, end).join('\n');
    if (end < lines.length) {
      const more = lines.length - end;
      const tail = byteCut ? `${more}+ more lines; ${sizeNote}` : `${more} more lines`;
      return `${shown}\n... (${tail}; read on with offset ${end + 1})`;
    }
    if (from > 0) return byteCut ? `${shown}\n... (truncated: ${sizeNote})` : shown;
  }
  return byteCut ? `${text}\n... (truncated: ${sizeNote}; pass a line limit to read less)` : text;
}

/** edit_file's inputs, checked before the file is read. */
export function checkEdit(userPath: string, oldText: string, newText: string): void {
  if (typeof oldText !== 'string' || oldText.length === 0) {
    throw new WorkspaceFsError('invalid_input', `${q(userPath)}: old_text must not be empty`);
  }
  if (typeof newText !== 'string') throw new WorkspaceFsError('invalid_input', `${q(userPath)}: new_text must be a string`);
  if (oldText === newText) throw new WorkspaceFsError('invalid_input', `${q(userPath)}: old_text and new_text are identical, nothing to change`);
}

/** Start positions of `needle`, overlapping ones included: any second match is ambiguity. */
function occurrences(text: string, needle: string): number[] {
  const hits: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) hits.push(i);
  return hits;
}

/** The file's text (`buf`) with the one occurrence of `oldText` replaced; refuses a missing or ambiguous one. */
export function replaceOnce(buf: Buffer, userPath: string, oldText: string, newText: string): string {
  if (isBinary(buf)) throw binaryError(userPath);
  let text: string;
  try {
    // fatal: re-encoding a non-UTF-8 file would silently corrupt it. ignoreBOM keeps the BOM.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
  } catch {
    throw new WorkspaceFsError('binary', `${q(userPath)} is not valid UTF-8 text; refusing to edit it`);
  }
  let [from, to] = [oldText, newText];
  let hits = occurrences(text, from);
  // Models write \n; a CRLF file should still match, and keep its line endings.
  if (hits.length === 0 && text.includes('\r\n') && from.includes('\n') && !from.includes('\r')) {
    [from, to] = [from.replace(/\n/g, '\r\n'), to.replace(/\r?\n/g, '\r\n')];
    hits = occurrences(text, from);
  }
  if (hits.length === 0) {
    throw new WorkspaceFsError('no_match', `old_text was not found in ${q(userPath)}; it must match the file exactly, including whitespace and indentation`);
  }
  if (hits.length > 1) {
    throw new WorkspaceFsError('ambiguous', `old_text was found ${hits.length} times in ${q(userPath)}; include more surrounding lines so it matches exactly once`);
  }
  // slice, not String.replace: `$&` and friends in new_text must stay literal.
  return text.slice(0, hits[0]) + to + text.slice(hits[0]! + from.length);
}
