// What the fake server remembers: every request (minus secrets), per-agent token totals, and
// the waiters of `waitForRequest`, which are re-checked whenever a record changes.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AgentUsage, RecordedRequest, TokenUsage } from './types';

/** Short stable id of a key, so tests can tell which key arrived without storing it. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** The presented key and how it came: `x-api-key`, or `authorization: Bearer` (SDK 1.12's way). */
export function presentedKey(headers: IncomingHttpHeaders): { auth: RecordedRequest['auth']; key?: string } {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x) return { auth: 'x-api-key', key: x };
  const m = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return m ? { auth: 'bearer', key: m[1].trim() } : { auth: 'none' };
}

export function publicHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k === 'authorization' || k === 'x-api-key' || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Share of prompt tokens served from cache: what `runtime.cache` reports as cached_fraction. */
export function cachedFraction(u: TokenUsage): number {
  const prompt = u.input + u.cacheRead + u.cacheWrite;
  return prompt === 0 ? 0 : u.cacheRead / prompt;
}

const zero = (): AgentUsage => ({ requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

interface Waiter {
  pred: (r: RecordedRequest) => boolean;
  resolve: (r: RecordedRequest) => void;
  reject: (e: Error) => void;
}

/**
 * Records an incoming request (key fingerprinted, never kept) and notes when its client goes
 * away before the answer is complete. Shared by the fake Messages API and the fake OpenAI server.
 */
export function recordRequest(rec: Recorder, req: IncomingMessage, res: ServerResponse, seq: number, raw: string, identify: (body: unknown) => string | undefined): RecordedRequest {
  let body: RecordedRequest['body'];
  try { body = JSON.parse(raw); } catch { body = undefined; }
  const { auth, key } = presentedKey(req.headers);
  const r: RecordedRequest = {
    seq, agent: (body && identify(body)) || 'unknown', method: req.method ?? 'POST', path: req.url ?? '',
    headers: publicHeaders(req.headers), auth, keyFingerprint: key ? keyFingerprint(key) : undefined,
    body, stream: !!body?.stream, receivedAt: Date.now(),
  };
  res.on('close', () => {
    if (!res.writableFinished && r.disconnectedAt === undefined) { r.disconnectedAt = Date.now(); rec.changed(); }
  });
  rec.add(r);
  return r;
}

export class Recorder {
  readonly all: RecordedRequest[] = [];
  private usage = new Map<string, AgentUsage>();
  private waiters = new Set<Waiter>();

  add(r: RecordedRequest): void {
    this.all.push(r);
    this.changed();
  }

  /** Call after mutating a record so waiters see it (outcome, disconnect…). */
  changed(): void {
    for (const w of [...this.waiters]) {
      const hit = this.all.find(w.pred);
      if (hit) { this.waiters.delete(w); w.resolve(hit); }
    }
  }

  addUsage(agent: string, u: TokenUsage): void {
    const a = this.usage.get(agent) ?? zero();
    a.requests++;
    a.input += u.input; a.output += u.output; a.cacheRead += u.cacheRead; a.cacheWrite += u.cacheWrite;
    this.usage.set(agent, a);
  }

  usageOf(agent?: string): AgentUsage {
    if (agent !== undefined) return { ...(this.usage.get(agent) ?? zero()) };
    const t = zero();
    for (const a of this.usage.values()) {
      t.requests += a.requests; t.input += a.input; t.output += a.output; t.cacheRead += a.cacheRead; t.cacheWrite += a.cacheWrite;
    }
    return t;
  }

  usageByAgent(): Record<string, AgentUsage> {
    return Object.fromEntries([...this.usage].map(([k, v]) => [k, { ...v }]));
  }

  /** Resolves with the first record (past or future) matching `pred`. */
  waitFor(pred: (r: RecordedRequest) => boolean, timeoutMs: number, describe: () => string): Promise<RecordedRequest> {
    const hit = this.all.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        pred,
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new Error(`fake-api: no matching request within ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** Fails every pending wait (the server is closing; nothing more will arrive). */
  abandon(): void {
    for (const w of this.waiters) w.reject(new Error('fake-api: closed while waiting for a request'));
    this.waiters.clear();
  }

  clear(): void {
    this.all.length = 0;
    this.usage.clear();
  }
}
