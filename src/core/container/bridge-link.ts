// The host's end of a container's network bridge (docs/containers.md, "Network"): the frames
// native/netbridge.c writes on the engine's exec stream, turned back into one stream per
// connection made inside the container, each handed to the product's proxy (which judges the
// host asked for). The container's side is not trusted: a program there may write anything on
// that stream, so a frame over MAX_FRAME bytes, an unknown type, an id opened twice or more than
// MAX_STREAMS open connections ends the bridge — never the host's memory.
//
// Frames both ways: type (1 byte) | stream id (u32 BE) | length (u32 BE) | payload.
//   R ready (once) · O open · D data · E end (half close) · C close
import { Duplex, type Readable, type Writable } from 'node:stream';

/** The largest frame either side sends (the bridge reads 32 KiB at a time). */
export const CHUNK = 32 * 1024;
/** Larger than any frame the bridge makes: a longer length is a malformed stream. */
export const MAX_FRAME = 1 << 20;
/** Connections open at once (as the bridge's own table). */
export const MAX_STREAMS = 256;
const HEADER = 9;

export function encodeFrame(type: string, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(HEADER);
  h.write(type, 0, 1, 'latin1');
  h.writeUInt32BE(id >>> 0, 1);
  h.writeUInt32BE(payload.length, 5);
  return payload.length ? Buffer.concat([h, payload]) : h;
}

/** One connection made inside the container, as a stream on the host. */
class BridgedConnection extends Duplex {
  constructor(private readonly link: BridgeLink, readonly id: number) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    this.link.wanted(this);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.link.send('D', this.id, chunk, cb);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.link.send('E', this.id, undefined, cb);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.link.forget(this, true);
    cb(err);
  }

  // What node:http asks of a socket it serves; nothing to tune on a bridged stream.
  setNoDelay(): this { return this; }
  setKeepAlive(): this { return this; }
  setTimeout(): this { return this; }
}

export class BridgeLink {
  private readonly conns = new Map<number, BridgedConnection>();
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pausedBy: BridgedConnection | null = null;
  private readonly drains: (() => void)[] = [];
  private endedWhy: string | null = null;
  private readonly readyWaiters: ((why: string | null) => void)[] = [];
  private isReady = false;

  /**
   * `input` is what the bridge writes (the exec's stdout), `output` what it reads (its stdin);
   * `accept` gets each connection the container makes.
   */
  constructor(private readonly input: Readable, private readonly output: Writable, private readonly accept: (conn: Duplex) => void) {
    input.on('data', (b: Buffer) => this.onData(b));
    input.once('end', () => this.end('the bridge ended'));
    input.once('error', (e) => this.end(`the bridge's stream failed: ${e.message}`));
    output.on('drain', () => { for (const cb of this.drains.splice(0)) cb(); });
    output.on('error', (e) => this.end(`the bridge's stream failed: ${e.message}`));
  }

  /** Resolves null once the bridge listens, or with why it never will (`timeoutMs` passed, the stream ended). */
  ready(timeoutMs: number): Promise<string | null> {
    if (this.isReady) return Promise.resolve(null);
    if (this.endedWhy) return Promise.resolve(this.endedWhy);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`the bridge did not start within ${timeoutMs / 1000} s`), timeoutMs);
      this.readyWaiters.push((why) => { clearTimeout(timer); resolve(why); });
    });
  }

  get alive(): boolean {
    return this.endedWhy === null;
  }

  /** Why the bridge ended (null while it runs). */
  get ended(): string | null {
    return this.endedWhy;
  }

  /** Whether a connection whose reader stalled holds the stream (nothing more is read until it reads). */
  get held(): boolean {
    return this.pausedBy !== null;
  }

  get open(): number {
    return this.conns.size;
  }

  /** Ends every connection; the bridge in the container exits when its stdin ends. */
  close(): void {
    this.end('the bridge was closed');
  }

  send(type: 'D' | 'E' | 'C', id: number, payload: Buffer | undefined, cb: (e?: Error | null) => void): void {
    if (this.endedWhy) { cb(type === 'C' ? null : new Error(this.endedWhy)); return; }
    let ok = true;
    if (payload && payload.length > CHUNK) {
      for (let at = 0; at < payload.length; at += CHUNK) ok = this.output.write(encodeFrame(type, id, payload.subarray(at, at + CHUNK)));
    } else ok = this.output.write(encodeFrame(type, id, payload));
    if (ok) cb();
    else this.drains.push(() => cb());
  }

  /** A connection's reader wants more: the stream is read again if it paused for that one. */
  wanted(conn: BridgedConnection): void {
    if (this.pausedBy === conn) {
      this.pausedBy = null;
      this.input.resume();
    }
  }

  forget(conn: BridgedConnection, tell: boolean): void {
    if (this.conns.get(conn.id) !== conn) return;
    this.conns.delete(conn.id);
    if (this.pausedBy === conn) this.wanted(conn);
    if (tell && !this.endedWhy) this.send('C', conn.id, undefined, () => undefined);
  }

  private onData(b: Buffer): void {
    this.chunks.push(b);
    this.buffered += b.length;
    while (this.buffered >= HEADER && !this.endedWhy) {
      const head = this.peek(HEADER);
      const len = head.readUInt32BE(5);
      if (len > MAX_FRAME) return this.end(`the bridge sent a frame of ${len} bytes (more than ${MAX_FRAME}): stopped`);
      if (this.buffered < HEADER + len) return;
      const frame = this.take(HEADER + len);
      this.onFrame(String.fromCharCode(frame[0]!), frame.readUInt32BE(1), frame.subarray(HEADER));
    }
  }

  private onFrame(type: string, id: number, payload: Buffer): void {
    const conn = this.conns.get(id);
    switch (type) {
      case 'R':
        this.isReady = true;
        for (const w of this.readyWaiters.splice(0)) w(null);
        return;
      case 'O': {
        // The bridge never does either (it opens below its own table's MAX_STREAMS, each id once):
        // a forger's. Answering each with a close had the host hold every answer while the bridge
        // read none (stopped): 1.3 GB for 27 MB of opens (test/container/network-attacks.test.ts).
        if (conn) return this.end(`the bridge opened connection ${id} twice: stopped`);
        if (this.conns.size >= MAX_STREAMS) return this.end(`the bridge opened more than ${MAX_STREAMS} connections: stopped`);
        const c = new BridgedConnection(this, id);
        c.on('error', () => undefined);
        this.conns.set(id, c);
        this.accept(c);
        return;
      }
      case 'D':
        if (conn && !conn.push(payload) && !this.pausedBy) {
          this.pausedBy = conn;
          this.input.pause();
        }
        return;
      case 'E':
        conn?.push(null);
        return;
      case 'C':
        if (conn) { this.forget(conn, false); conn.destroy(); }
        return;
      default:
        this.end(`the bridge sent an unknown frame (${JSON.stringify(type)}): stopped`);
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    const whole = first.length >= n ? first : Buffer.concat(this.chunks);
    const later = whole === first ? this.chunks.slice(1) : [];
    const rest = whole.subarray(n);
    this.chunks = rest.length ? [rest, ...later] : later;
    this.buffered -= n;
    return whole.subarray(0, n);
  }

  private end(why: string): void {
    if (this.endedWhy) return;
    this.endedWhy = why;
    for (const w of this.readyWaiters.splice(0)) w(why);
    for (const c of [...this.conns.values()]) { this.conns.delete(c.id); c.destroy(); }
    for (const cb of this.drains.splice(0)) cb();
    this.input.resume();
    // The bridge's stdin ends too, so the program exits and frees the port for the next one.
    this.output.end();
  }
}
