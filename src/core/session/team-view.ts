// The read models the hosts render (ARCHITECTURE.md "The door"): snapshots of the roster,
// the board, the requests and the merge queue, each inbox, and the readers of the inbox
// threads, a transcript and the change records. A host holds this view, never the stores:
// it cannot write the team's files past the action table (actions/), and what it shows is
// read the same way in every host. What changed comes from the session's one change feed
// (TeamSession.watchFiles / subscribe); a view is read again on a change.
import type { MergeEntry, Member, Message, RequestRecord, Task, TeamConfig } from '../../shared/schemas';
import type { WorktreeInfo, WorktreeManager } from '../worktree/manager';
import type { Disposable } from '../runtime/types';
import { QueueStore } from '../merge/queue-store';
import type { Team } from '../team/team';
import type { Delivery } from '../team/mailbox';
import { ChangeLog } from '../watch/change-log';
import type { ItemChange } from '../watch/transcript-items';
import { allItems, TranscriptFollower } from '../watch/transcript-reader';
import type { TranscriptItem } from '../../shared/transcript-items';
import { InboxFeed } from './inbox-feed';

export type RequestFilter = Partial<Pick<RequestRecord, 'status' | 'kind' | 'to' | 'from' | 'subject'>>;

export class TeamView {
  private readonly queueStore: QueueStore;

  constructor(private readonly team: Team, private readonly wm: () => WorktreeManager) {
    this.queueStore = new QueueStore(team.root);
  }

  /** The workspace the team lives in. */
  get root(): string {
    return this.team.root;
  }

  // ── snapshots (each read from the files now; a missing team reads as an error) ──

  /** The roster: the team's name, the lead's record and every member. */
  roster(): Promise<TeamConfig> {
    return this.team.roster.read();
  }

  members(): Promise<Member[]> {
    return this.team.roster.list();
  }

  member(name: string): Promise<Member | undefined> {
    return this.team.roster.get(name);
  }

  /** The task board. */
  tasks(): Promise<Task[]> {
    return this.team.tasks.list();
  }

  task(id: number): Promise<Task | undefined> {
    return this.team.tasks.get(id);
  }

  requests(filter?: RequestFilter): Promise<RequestRecord[]> {
    return this.team.requests.list(filter);
  }

  request(id: string): Promise<RequestRecord | undefined> {
    return this.team.requests.get(id);
  }

  /** Every message `name` received, oldest first. */
  inbox(name: string): Promise<Message[]> {
    return this.team.mailbox.history(name);
  }

  /** `name`'s messages from byte `offset` on, and where the next read starts. */
  inboxFrom(name: string, offset: number): Promise<Delivery> {
    return this.team.mailbox.readFrom(name, offset);
  }

  /** Calls `onMail` when `name`'s inbox grows (any process). */
  onInbox(name: string, onMail: () => void): Promise<Disposable> {
    return this.team.mailbox.subscribe(name, onMail);
  }

  /** The merge queue's entries, oldest first (docs/file-formats.md, "Merge queue"). */
  queue(): Promise<MergeEntry[]> {
    return this.queueStore.read();
  }

  /** Each teammate's latest queue entry. */
  async latestMerges(): Promise<Map<string, MergeEntry>> {
    return new Map((await this.queue()).map((e) => [e.teammate, e]));
  }

  /** The worktrees of isolated teammates (the session's worktreeViews() adds where each stands). */
  worktrees(): Promise<WorktreeInfo[]> {
    return this.wm().list();
  }

  // ── readers that follow what is appended ──

  /** Every inbox's messages, read incrementally: the Inbox view's threads. */
  inboxFeed(): InboxFeed {
    return new InboxFeed(this.team);
  }

  /** `agent`'s transcript as items, loaded from its end, then followed (`onChange` per item). */
  transcript(agent: string, onChange: (c: ItemChange) => void): TranscriptFollower {
    return new TranscriptFollower(this.team.paths.transcript(agent), agent, onChange);
  }

  /** All of `agent`'s transcript as items (an export: the whole file, not its end). */
  transcriptItems(agent: string): Promise<TranscriptItem[]> {
    return allItems(this.team.paths.transcript(agent), agent);
  }

  /** The change records every agent's writes left (`.team/changes/`), and their contents. */
  changeLog(): ChangeLog {
    return new ChangeLog(this.team.root);
  }
}
