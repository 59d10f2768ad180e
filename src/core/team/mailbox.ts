// Mailboxes (.team/inbox/<name>.jsonl): append-only threads. Reading never deletes; what
// the owner has consumed is a byte cursor kept beside the inbox. A consumer that needs
// exactly-once effect records the cursor with its own effect (the agent loop stores it in
// its transcript) and acks after, so a crash between the two re-reads nothing twice.
import { randomUUID } from 'node:crypto';
import { InboxCursor, Message, MessageType, type Message as MessageT } from '../../shared/schemas';
import { readJsonRecord, reportUnreadable, writeJsonAtomic } from '../util/atomic-file';
import { isUnreadable } from '../util/io-faults';
import { assertParticipantName } from '../util/names';
import { reportProblem } from '../util/problems';
import type { DirWatcher, Disposable } from './dir-watcher';
import { parseInboxLine } from './inbox-lines';
import { appendJsonLine, readJsonLines } from './jsonl';
import type { TeamPaths } from './paths';
import { latestEpoch, type Fences } from './fences';
import type { Roster } from './roster';

let lastTime = 0;
/**
 * Seconds since the epoch, strictly increasing within this process: messages sent one after
 * another keep their order when a thread merges two inboxes by time, even within one
 * millisecond.
 */
function messageTime(): number {
  lastTime = Math.max(Date.now() / 1000, lastTime + 1e-6);
  return lastTime;
}

export class MailboxError extends Error {}

/** `epoch`: the fence (fences.ts) its writer held; one older than the last fence is ignored. */
const Cursor = InboxCursor;

export type SendInput = {
  from: string;
  to: string;
  type: MessageType;
  content: string;
} & Record<string, unknown>;

export interface BroadcastResult {
  sent: MessageT[];
  failed: { to: string; error: string }[];
}

/** "bob (recipient "bob" has shut down), …" */
export function describeFailed(r: BroadcastResult): string {
  return r.failed.map((f) => `${f.to} (${f.error})`).join(', ');
}

export interface Delivery {
  messages: MessageT[];
  /** Cursor value to ack once the messages have been handled. */
  cursor: number;
}

export class Mailbox {
  constructor(
    private readonly paths: TeamPaths,
    private readonly roster: Roster,
    private readonly watcher: DirWatcher,
    private readonly fences?: Fences,
  ) {}

  /** Throws MailboxError unless `name` can receive mail now. */
  async assertRecipient(name: string): Promise<void> {
    assertParticipantName(name);
    if (name === 'lead' || name === 'user') return;
    const member = await this.roster.get(name);
    if (!member) throw new MailboxError(`unknown recipient "${name}"`);
    if (member.status === 'shutdown') throw new MailboxError(`recipient "${name}" has shut down`);
  }

  /** Validates and appends a message; resolves when it is durable in the recipient's inbox. */
  async send(input: SendInput): Promise<MessageT> {
    // id and timestamp are always ours, whatever the caller passes.
    const { from, to, type, content, id: _id, timestamp: _ts, ...extra } = input;
    const typeCheck = MessageType.safeParse(type);
    if (!typeCheck.success) throw new MailboxError(`unknown message type ${JSON.stringify(type)}`);
    assertParticipantName(from);
    const path = this.paths.inbox(to);
    // The slot in the inbox is taken now, before the asynchronous recipient check, so a
    // sender's messages keep their order even when it does not await each send.
    const message = (async () => {
      await this.assertRecipient(to);
      // `id` first: a reader recovering from a torn line looks for this prefix.
      const candidate = { id: randomUUID(), type, from, to, content, timestamp: messageTime(), ...extra };
      const parsed = Message.safeParse(candidate);
      if (!parsed.success) {
        throw new MailboxError(`invalid ${type}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      }
      return { candidate, parsed: parsed.data };
    })();
    await appendJsonLine(path, message.then((m) => m.candidate));
    return (await message).parsed;
  }

  /**
   * Sends `content` to every teammate except the sender and shut-down members. Each
   * recipient is tried; the result says who got it and who did not (a recipient that shut
   * down meanwhile), so a caller never retries — and duplicates — what went out.
   */
  async broadcastReport(from: string, content: string): Promise<BroadcastResult> {
    const members = await this.roster.list();
    const targets = members.filter((m) => m.name !== from && m.status !== 'shutdown').map((m) => m.name);
    const settled = await Promise.allSettled(targets.map((to) => this.send({ from, to, type: 'broadcast', content })));
    const out: BroadcastResult = { sent: [], failed: [] };
    settled.forEach((r, i) => {
      if (r.status === 'fulfilled') out.sent.push(r.value);
      else out.failed.push({ to: targets[i]!, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
    });
    return out;
  }

  /** broadcastReport's messages; throws only when nobody got it. */
  async broadcast(from: string, content: string): Promise<MessageT[]> {
    const r = await this.broadcastReport(from, content);
    if (r.sent.length === 0 && r.failed.length) throw new MailboxError(`broadcast not delivered: ${describeFailed(r)}`);
    return r.sent;
  }

  /** Messages in `name`'s inbox from byte `offset` on (invalid records reported, skipped). */
  async readFrom(name: string, offset: number): Promise<Delivery> {
    const path = this.paths.inbox(name);
    let read;
    try {
      read = await readJsonLines(path, offset);
    } catch (err) {
      // Nothing is delivered (or acked) from an inbox we may not read: it waits, reported.
      if (!isUnreadable(err)) throw err;
      reportUnreadable(path, err);
      return { messages: [], cursor: offset };
    }
    const { records, nextOffset } = read;
    const messages: MessageT[] = [];
    for (const r of records) {
      const parsed = parseInboxLine(r.value, name, path, r.offset);
      if (parsed.ok) messages.push(parsed.message);
      else reportProblem({ path, message: `invalid message at byte ${r.offset} skipped: ${parsed.error}` });
    }
    return { messages, cursor: nextOffset };
  }

  async cursor(name: string): Promise<number> {
    // Unreadable: from the start (an agent goes on from the cursor its transcript recorded).
    const [r, fences] = await Promise.all([readJsonRecord(this.paths.cursor(name), Cursor), this.fences?.list(name) ?? []]);
    // Moved by a host that had lost the agent to another (paused past its lease): not delivered.
    if (r && fences.length && (r.epoch ?? 0) < latestEpoch(fences)) return 0;
    return r?.offset ?? 0;
  }

  /**
   * Marks everything before `cursor` as delivered. Never moves backwards. With `epoch` (an
   * agent's own delivery), refused with FencedError once another host fenced the agent.
   */
  async ack(name: string, cursor: number, epoch?: number): Promise<void> {
    if (epoch !== undefined) await this.fences?.check(name, epoch);
    if (cursor <= (await this.cursor(name))) return;
    await writeJsonAtomic(this.paths.cursor(name), { offset: cursor, ...(epoch !== undefined ? { epoch } : {}) });
  }

  /** Undelivered messages (from the stored cursor or a later one the caller holds). */
  async unread(name: string, atLeast = 0): Promise<Delivery> {
    return this.readFrom(name, Math.max(atLeast, await this.cursor(name)));
  }

  /** Everything ever sent to `name`, oldest first. */
  async history(name: string): Promise<MessageT[]> {
    return (await this.readFrom(name, 0)).messages;
  }

  /** The conversation between two participants, merged by time. */
  async thread(a: string, b: string): Promise<MessageT[]> {
    const [toA, toB] = await Promise.all([this.history(a), this.history(b)]);
    return [...toA.filter((m) => m.from === b), ...toB.filter((m) => m.from === a)].sort(
      (x, y) => x.timestamp - y.timestamp,
    );
  }

  /** Calls `onMail()` whenever `name`'s inbox changes, from this process or another. */
  subscribe(name: string, onMail: () => void): Promise<Disposable> {
    const file = `${assertParticipantName(name)}.jsonl`;
    return this.watcher.watchDir(this.paths.inboxDir, (f) => {
      if (f === file) onMail();
    }, [file]);
  }
}
