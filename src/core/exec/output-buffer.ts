// Bounded capture of a command's combined output. A command may print gigabytes
// (`yes`, a runaway log), so memory is capped at `maxBytes` no matter how much
// arrives: the first part is kept verbatim, the last part lives in a ring buffer,
// and everything in between is only counted.

/** Share of the budget kept from the start of the output; the rest keeps the end. */
const HEAD_SHARE = 0.6;

export interface CapturedOutput {
  text: string;
  truncated: boolean;
  /** Bytes received in total, before any truncation. */
  totalBytes: number;
}

/**
 * Bytes at the end of `b` that start a UTF-8 sequence not yet complete. Chunk
 * boundaries fall anywhere, and stdout/stderr interleave, so each stream holds
 * such a tail back until its next chunk instead of decoding it to U+FFFD.
 */
export function incompleteUtf8Tail(b: Uint8Array): number {
  for (let i = 1; i <= Math.min(4, b.length); i++) {
    const c = b[b.length - i];
    if ((c & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > i ? i : 0;
  }
  return 0;
}

export class OutputBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly headChunks: Buffer[] = [];
  private headLen = 0;
  private ring: Buffer | null = null; // allocated only once the head is full
  private ringPos = 0;
  private ringLen = 0;
  private total = 0;
  private readonly pending = new Map<string, Buffer>();

  constructor(maxBytes: number) {
    const max = Math.max(16, Math.floor(maxBytes));
    this.headCap = Math.floor(max * HEAD_SHARE);
    this.tailCap = max - this.headCap;
  }

  /** Appends a chunk from `stream` (e.g. "stdout"), in arrival order. */
  push(stream: string, chunk: Buffer): void {
    const held = this.pending.get(stream);
    const data = held ? Buffer.concat([held, chunk]) : chunk;
    const keep = incompleteUtf8Tail(data);
    if (keep > 0) this.pending.set(stream, Buffer.from(data.subarray(data.length - keep)));
    else if (held) this.pending.delete(stream);
    this.append(keep > 0 ? data.subarray(0, data.length - keep) : data);
  }

  /** Decodes what was kept; held-back partial characters are flushed (as U+FFFD). */
  finish(): CapturedOutput {
    for (const rest of this.pending.values()) this.append(rest);
    this.pending.clear();
    const head = Buffer.concat(this.headChunks, this.headLen);
    const tail = this.linearTail();
    const dropped = this.total - this.headLen - this.ringLen;
    if (dropped === 0) {
      return { text: Buffer.concat([head, tail]).toString('utf8'), truncated: false, totalBytes: this.total };
    }
    // Cut both sides on character boundaries so the marker is not next to mojibake.
    const headEnd = head.length - incompleteUtf8Tail(head);
    let tailStart = 0;
    while (tailStart < Math.min(3, tail.length) && (tail[tailStart] & 0xc0) === 0x80) tailStart++;
    const cut = dropped + (head.length - headEnd) + tailStart;
    const text =
      head.subarray(0, headEnd).toString('utf8') +
      `\n[... ${cut} bytes truncated ...]\n` +
      tail.subarray(tailStart).toString('utf8');
    return { text, truncated: true, totalBytes: this.total };
  }

  private append(data: Buffer): void {
    if (data.length === 0) return;
    this.total += data.length;
    let rest = data;
    if (this.headLen < this.headCap) {
      const take = Math.min(this.headCap - this.headLen, rest.length);
      // Copy: a slice would pin the stream's whole (up to 64 KB) read buffer.
      this.headChunks.push(Buffer.from(rest.subarray(0, take)));
      this.headLen += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    this.ring ??= Buffer.allocUnsafe(this.tailCap);
    if (rest.length >= this.tailCap) rest = rest.subarray(rest.length - this.tailCap);
    const first = Math.min(rest.length, this.tailCap - this.ringPos);
    rest.copy(this.ring, this.ringPos, 0, first);
    rest.copy(this.ring, 0, first);
    this.ringPos = (this.ringPos + rest.length) % this.tailCap;
    this.ringLen = Math.min(this.tailCap, this.ringLen + rest.length);
  }

  private linearTail(): Buffer {
    if (!this.ring || this.ringLen === 0) return Buffer.alloc(0);
    if (this.ringLen < this.tailCap) return this.ring.subarray(0, this.ringLen);
    return Buffer.concat([this.ring.subarray(this.ringPos), this.ring.subarray(0, this.ringPos)]);
  }
}
