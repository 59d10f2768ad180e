// The inbox threads' read model, which the Inbox view renders (hosts get it from
// TeamView.inboxFeed(), never the mailbox): every message in the team's inboxes, read
// incrementally. Each inbox file is read from the byte offset where the last read stopped, so
// a change costs only the new lines however long the history is. Reads are serialised so no
// line is delivered twice.
import { readdir } from 'node:fs/promises';
import type { Message } from '../../shared/schemas';
import type { Team } from '../team/team';

const INBOX_FILE = /^([a-z][a-z0-9_-]{0,31})\.jsonl$/;

export class InboxFeed {
  private readonly offsets = new Map<string, number>();
  private readonly all: Message[] = [];
  private chain: Promise<Message[]> = Promise.resolve([]);

  constructor(private readonly team: Team) {}

  /** Everything read so far, oldest first. */
  get messages(): readonly Message[] {
    return this.all;
  }

  /** Reads what is new in every inbox; resolves with the new messages, oldest first. */
  poll(): Promise<Message[]> {
    this.chain = this.chain.then(() => this.readNew(), () => this.readNew());
    return this.chain;
  }

  private async readNew(): Promise<Message[]> {
    let names: string[];
    try {
      names = await readdir(this.team.paths.inboxDir);
    } catch {
      return [];
    }
    const owners = names.map((n) => INBOX_FILE.exec(n)?.[1]).filter((n): n is string => !!n);
    const batches = await Promise.all(owners.map(async (owner) => {
      const from = this.offsets.get(owner) ?? 0;
      const d = await this.team.mailbox.readFrom(owner, from).catch(() => ({ messages: [], cursor: from }));
      this.offsets.set(owner, d.cursor);
      return d.messages;
    }));
    const fresh = batches.flat().sort((a, b) => a.timestamp - b.timestamp);
    if (fresh.length === 0) return fresh;
    const last = this.all[this.all.length - 1];
    // A loop, not push(...fresh): spreading 100k+ arguments overflows the call stack.
    for (const m of fresh) this.all.push(m);
    if (last && fresh[0]!.timestamp < last.timestamp) this.all.sort((a, b) => a.timestamp - b.timestamp);
    return fresh;
  }
}
