// The tutorial's design (learn-claude-code s09–s11), re-implemented here so the benchmarks
// can run it side by side with ours on the same load. It is deliberately faithful to the
// defects the SPEC calls out; do not "fix" it, the point is to measure them:
// - send appends a JSON line to `.team/inbox/<to>.jsonl`;
// - read_inbox reads the whole file, then truncates it to empty — no lock, so a line
//   appended between the read and the truncate is gone;
// - a claim reads the task file, checks the owner is empty and writes the owner back — no
//   lock, so two claimers that both read "unowned" both win;
// - files are rewritten in place (truncate + write), so a concurrent reader can see a torn
//   file.
// Node's async fs is used where the tutorial (Python threads) would block: that is how a
// port into an extension host would have to be written, and it leaves the same windows
// between read and write that thread switches leave in the original.
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface NaiveMessage {
  type: string;
  from: string;
  content: string;
  timestamp: number;
}

export class NaiveMailbox {
  readonly dir: string;

  constructor(root: string) {
    this.dir = join(root, '.team', 'inbox');
  }

  private path(name: string): string {
    return join(this.dir, `${name}.jsonl`);
  }

  /** s09 `send`: one appended line, no recipient check beyond the type. */
  async send(from: string, to: string, content: string, type = 'message'): Promise<void> {
    const msg: NaiveMessage = { type, from, content, timestamp: Date.now() / 1000 };
    await appendFile(this.path(to), JSON.stringify(msg) + '\n');
  }

  /**
   * s09 `read_inbox`: read everything, then empty the file. Lines that do not parse (a read
   * racing an append) are counted in `torn` — the original would raise on them, and either
   * way they are gone after the truncate.
   */
  async readInbox(name: string): Promise<{ messages: NaiveMessage[]; torn: number }> {
    let text: string;
    try {
      text = await readFile(this.path(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], torn: 0 };
      throw err;
    }
    const messages: NaiveMessage[] = [];
    let torn = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        messages.push(JSON.parse(line) as NaiveMessage);
      } catch {
        torn++;
      }
    }
    await writeFile(this.path(name), '');
    return { messages, torn };
  }
}

export interface NaiveTask {
  id: number;
  subject: string;
  description: string;
  status: 'pending' | 'in_progress' | 'completed';
  owner: string;
  blockedBy: number[];
}

export class NaiveTaskBoard {
  readonly dir: string;
  /** Reads that hit a file mid-rewrite (unparsable): a defect of in-place writes. */
  torn = 0;

  constructor(root: string) {
    this.dir = join(root, '.tasks');
  }

  private path(id: number): string {
    return join(this.dir, `task_${id}.json`);
  }

  async write(task: NaiveTask): Promise<void> {
    await writeFile(this.path(task.id), JSON.stringify(task, null, 2));
  }

  async read(id: number): Promise<NaiveTask | null> {
    try {
      return JSON.parse(await readFile(this.path(id), 'utf8')) as NaiveTask;
    } catch {
      this.torn++;
      return null;
    }
  }

  private async ids(): Promise<number[]> {
    const ids: number[] = [];
    for (const n of await readdir(this.dir)) {
      const m = /^task_(\d+)\.json$/.exec(n);
      if (m) ids.push(Number(m[1]));
    }
    return ids.sort((a, b) => a - b);
  }

  /**
   * s11 `scan_unclaimed_tasks` + `unclaimed[0]`: the lowest pending, unowned, unblocked task.
   * Two economies that change cost, not outcome: the scan stops at the first claimable task
   * (the one the tutorial's full scan would pick), and skips ids this claimer already saw
   * completed (nothing in this design un-completes a task). Without them 1000 tasks cost
   * ~10^6 file reads and the benchmark would take minutes; with them, naive claims/s is an
   * upper bound for the tutorial's design. `unreadable` says a file was torn, so "nothing
   * claimable" is not yet certain.
   */
  async firstClaimable(completed: Set<number>): Promise<{ task: NaiveTask | null; unreadable: boolean }> {
    let unreadable = false;
    for (const id of await this.ids()) {
      if (completed.has(id)) continue;
      const t = await this.read(id);
      if (!t) {
        unreadable = true;
        continue;
      }
      if (t.status === 'completed') completed.add(id);
      else if (t.status === 'pending' && !t.owner && t.blockedBy.length === 0) return { task: t, unreadable };
    }
    return { task: null, unreadable };
  }

  /** s11 `claim_task`: read, check unowned, write owner — with nothing between them. */
  async claim(id: number, owner: string): Promise<boolean> {
    const t = await this.read(id);
    if (!t || t.owner || t.status !== 'pending') return false;
    t.owner = owner;
    t.status = 'in_progress';
    await this.write(t);
    return true;
  }

  /** s10/s11 `task_update(status=completed)`: the same unguarded read-modify-write. */
  async complete(id: number): Promise<void> {
    // A torn read is retried, as an agent would retry a failed tool call: the defect
    // measured is the race, not giving up on a half-written file.
    let t = await this.read(id);
    for (let i = 0; !t && i < 100; i++) t = await this.read(id);
    if (!t) return;
    t.status = 'completed';
    await this.write(t);
  }
}
