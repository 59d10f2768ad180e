// Protocol request records (.team/requests/<request_id>.json) for shutdown and plan
// approval. Each record is a small state machine: pending → approved | rejected | expired.
// Transitions happen under a per-record lock so two responders cannot both win.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { RequestRecord, type RequestKind } from '../../shared/schemas';
import { readJsonFile, readJsonRecord, writeJsonAtomic } from '../util/atomic-file';
import { withFileLock } from '../util/file-lock';
import { assertParticipantName } from '../util/names';
import type { TeamPaths } from './paths';

export type RespondResult = { ok: true; record: RequestRecord } | { ok: false; error: string };

export interface CreateRequest {
  kind: RequestKind;
  from: string;
  to: string;
  /** The teammate the request concerns (the target of a shutdown, the author of a plan). */
  subject: string;
  incarnation?: number;
  plan?: string;
  /** Plans: the task and plan mode they were submitted for. */
  task?: number | null;
  plan_mode_id?: string | null;
}

export interface Respond {
  requestId: string;
  kind: RequestKind;
  responder: string;
  approve: boolean;
  feedback?: string;
  reason?: string;
  /**
   * The responder's current incarnation: a request made for an earlier one (it raced a
   * re-spawn's expiry sweep) expires instead of being answered.
   */
  incarnation?: number;
}

export class Requests {
  constructor(private readonly paths: TeamPaths) {}

  async create(input: CreateRequest): Promise<RequestRecord> {
    assertParticipantName(input.from);
    assertParticipantName(input.to);
    const record: RequestRecord = {
      request_id: `req_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`,
      kind: input.kind,
      from: input.from,
      to: input.to,
      subject: input.subject,
      status: 'pending',
      created_at: Date.now() / 1000,
      ...(input.incarnation !== undefined ? { incarnation: input.incarnation } : {}),
      ...(input.plan !== undefined ? { plan: input.plan } : {}),
      ...(input.kind === 'plan' ? { task: input.task ?? null, plan_mode_id: input.plan_mode_id ?? null } : {}),
    };
    await writeJsonAtomic(this.paths.request(record.request_id), record);
    return record;
  }

  /**
   * Writes `record` unless a record with its id exists already (the learn-claude-code tutorial's plan
   * submissions arrive as messages only; deciding one needs its record). Returns what is on
   * disk afterwards.
   */
  async adopt(record: RequestRecord): Promise<RequestRecord> {
    const path = this.paths.request(record.request_id);
    return withFileLock(`${path}.lock`, async () => {
      const r = await readJsonFile(path, RequestRecord);
      if (r.kind === 'ok') return r.value;
      await writeJsonAtomic(path, record);
      return record;
    });
  }

  async get(requestId: string): Promise<RequestRecord | undefined> {
    let path: string;
    try {
      path = this.paths.request(requestId);
    } catch {
      return undefined;
    }
    return readJsonRecord(path, RequestRecord);
  }

  async list(filter: Partial<Pick<RequestRecord, 'status' | 'kind' | 'to' | 'from' | 'subject'>> = {}): Promise<RequestRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.paths.requestsDir);
    } catch {
      return [];
    }
    const ids = names.filter((n) => /^[A-Za-z0-9_-]{1,64}\.json$/.test(n)).map((n) => n.slice(0, -5));
    const records = (await Promise.all(ids.map((id) => this.get(id)))).filter((r): r is RequestRecord => !!r);
    return records
      .filter((r) => Object.entries(filter).every(([k, v]) => v === undefined || r[k as keyof RequestRecord] === v))
      .sort((a, b) => a.created_at - b.created_at);
  }

  /**
   * Settles a pending request. Accepted only from the addressee (`to`) — for plans the
   * user may always decide — for a request of the same kind that is still pending.
   */
  async respond(input: Respond): Promise<RespondResult> {
    let path: string;
    try {
      path = this.paths.request(input.requestId);
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
    return withFileLock(`${path}.lock`, async () => {
      const r = await readJsonFile(path, RequestRecord);
      if (r.kind !== 'ok') return { ok: false, error: `unknown request_id "${input.requestId}"` };
      const rec = r.value;
      if (rec.kind !== input.kind) return { ok: false, error: `request ${rec.request_id} is a ${rec.kind} request, not ${input.kind}` };
      const mayAnswer = input.responder === rec.to || (rec.kind === 'plan' && input.responder === 'user');
      if (!mayAnswer) return { ok: false, error: `request ${rec.request_id} is addressed to ${rec.to}, not ${input.responder}` };
      if (rec.status !== 'pending') return { ok: false, error: `request ${rec.request_id} is already ${rec.status}` };
      if (input.incarnation !== undefined && rec.incarnation !== undefined && rec.incarnation < input.incarnation) {
        await writeJsonAtomic(path, { ...rec, status: 'expired', updated_at: Date.now() / 1000 });
        return { ok: false, error: `request ${rec.request_id} was made for an earlier incarnation of ${rec.to}; it has expired` };
      }
      const next: RequestRecord = {
        ...rec,
        status: input.approve ? 'approved' : 'rejected',
        updated_at: Date.now() / 1000,
        responded_by: input.responder,
        ...(input.feedback !== undefined ? { feedback: input.feedback } : {}),
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
      };
      await writeJsonAtomic(path, next);
      return { ok: true, record: next };
    });
  }

  /** Expires pending requests concerning `name` from incarnations before `incarnation`. */
  async expireStale(name: string, incarnation: number): Promise<RequestRecord[]> {
    const pending = await this.list({ status: 'pending', subject: name });
    const expired: RequestRecord[] = [];
    for (const rec of pending) {
      if ((rec.incarnation ?? 0) >= incarnation) continue;
      const path = this.paths.request(rec.request_id);
      const done = await withFileLock(`${path}.lock`, async () => {
        const r = await readJsonFile(path, RequestRecord);
        if (r.kind !== 'ok' || r.value.status !== 'pending') return null;
        const next: RequestRecord = { ...r.value, status: 'expired', updated_at: Date.now() / 1000 };
        await writeJsonAtomic(path, next);
        return next;
      });
      if (done) expired.push(done);
    }
    return expired;
  }
}
