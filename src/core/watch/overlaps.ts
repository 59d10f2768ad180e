// Overlap warnings (README "Overlap warnings"; docs/file-formats.md, "Changes"): two agents
// changed the same file and neither change has been merged into the other's branch — two
// worktrees, or one tree — so one of them is about to be surprised at merge time. The Changes
// view marks the file. In one tree, or a worktree against the main checkout, each is told once
// per file and pair, at the second change, in one note from the team per pair and batch (the
// files listed). Two worktrees hold work split on purpose that the merge queue reconciles
// (splitWork), a file the lead gave to exactly one task (its `files`) is changed in turns by
// design, and two changes both merged already met: none of these is told.
//
// "Merged into the other's branch" is read from what this team merged: a change made in
// worktree <n> is in the workspace branch once a merge of wt/<n> (`worktree merge`, or the
// merge queue) finished after it. Nothing else counts as merged (a teammate merging the
// workspace branch into its own is not seen), so the warning errs on the side of telling.
import { join } from 'node:path';
import { OverlapWarning } from '../../shared/schemas/changes';
import { readEvents } from '../worktree/store';
import { QueueStore } from '../merge/queue-store';
import { appendJsonLine, readJsonLines } from '../team/jsonl';
import { withFileLock } from '../util/file-lock';
import type { Mailbox } from '../team/mailbox';
import { globMatcher } from '../permissions/path-glob';
import type { Task } from '../../shared/schemas';
import type { ChangeLog, ChangeRecord } from './change-log';

/** When worktree `name`'s branch was last merged into the workspace branch (seconds). */
export type MergeMarks = Map<string, number>;

const worktreeOf = (root: string): string | null => /^\.worktrees\/([^/]+)/.exec(root)?.[1] ?? null;

/** Whether change `c` is part of the branch checked out at `intoRoot`. */
function mergedInto(c: ChangeRecord, intoRoot: string, marks: MergeMarks): boolean {
  const wt = worktreeOf(c.root);
  if (!wt || worktreeOf(intoRoot) !== null) return false;
  return (marks.get(wt) ?? 0) > c.ts;
}

/** Whether change `c`, made in a worktree, was merged into the workspace branch after it was made. */
function landed(c: ChangeRecord, marks: MergeMarks): boolean {
  const wt = worktreeOf(c.root);
  return wt !== null && (marks.get(wt) ?? 0) > c.ts;
}

/**
 * Two changes to the same file by different agents, neither merged into the other's branch.
 * Two worktree changes that have both landed met at the second merge already: no clash.
 */
export function clash(a: ChangeRecord, b: ChangeRecord, marks: MergeMarks): boolean {
  if (a.agent === b.agent || a.agent === 'user' || b.agent === 'user' || a.path !== b.path) return false;
  if (landed(a, marks) && landed(b, marks)) return false;
  return !mergedInto(a, b.root, marks) && !mergedInto(b, a.root, marks);
}

/**
 * Whether the lead gave `path` to exactly one task (its `files` globs): then the agents that
 * change it take turns on that task by design (a task reassigned or carried on), not by surprise.
 */
export function assignedToOneTask(tasks: readonly Task[], path: string): boolean {
  return tasks.filter((t) => t.files?.some((g) => globMatcher(g)(path))).length === 1;
}

/**
 * Two changes made in two different worktrees: work split across branches on purpose, which
 * the merge queue reconciles one branch at a time (a conflict goes back to the later branch
 * with the other side's commits). A note at write time would only have the two teammates
 * negotiate what was already divided — in the bridge runs, calls spent and a wake wasted — so
 * none is sent; the Changes view still marks the file (overlapsOf).
 */
export function splitWork(a: ChangeRecord, b: ChangeRecord): boolean {
  const wa = worktreeOf(a.root);
  const wb = worktreeOf(b.root);
  return wa !== null && wb !== null && wa !== wb;
}

/** For each agent and file (`agent\0path`), the other agents whose changes to it clash with its own. */
export function overlapsOf(changes: readonly ChangeRecord[], marks: MergeMarks): Map<string, Set<string>> {
  const byPath = new Map<string, ChangeRecord[]>();
  for (const c of changes) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c]);
  const out = new Map<string, Set<string>>();
  for (const [path, cs] of byPath) {
    for (const a of cs) {
      for (const b of cs) {
        if (!clash(a, b, marks)) continue;
        const key = `${a.agent}\0${path}`;
        out.set(key, (out.get(key) ?? new Set()).add(b.agent));
      }
    }
  }
  return out;
}

/** Merges this team made: worktree merges (`.worktrees/events.jsonl`) and landed merge-queue entries. */
export async function mergeMarks(teamRoot: string): Promise<MergeMarks> {
  const marks: MergeMarks = new Map();
  const note = (name: string, at: number) => marks.set(name, Math.max(marks.get(name) ?? 0, at));
  for (const ev of await readEvents(join(teamRoot, '.worktrees', 'events.jsonl'))) if (ev.event === 'merge' && ev.phase === 'after') note(ev.name, ev.ts);
  for (const e of await new QueueStore(teamRoot).read().catch(() => [])) if (e.state === 'merged') note(e.teammate, e.updated_at);
  return marks;
}

const Warned = OverlapWarning;

/** Tells `to` that `other` changed `path` too (a note in its own inbox, as job notes are). */
export type OverlapTeller = (to: string, other: string, path: string, where: string) => Promise<void>;

/**
 * After `rec` was recorded: every agent whose change to the same file clashes with it, and who
 * was not warned about this file with this agent before, is warned — and so is rec's agent.
 * Returns the agents newly warned about.
 */
export async function warnOverlaps(log: ChangeLog, rec: ChangeRecord, tell: OverlapTeller, assigned: (path: string) => Promise<boolean> = async () => false): Promise<string[]> {
  if (rec.agent === 'user') return [];
  const { changes } = await log.list();
  const same = changes.filter((c) => c.path === rec.path && c.agent !== rec.agent);
  if (!same.length || (await assigned(rec.path))) return [];
  const marks = await mergeMarks(log.teamRoot);
  const others = new Map<string, ChangeRecord>();
  for (const c of same) if (clash(rec, c, marks) && !splitWork(rec, c)) others.set(c.agent, c);
  if (!others.size) return [];
  const file = join(log.dir, 'overlaps.jsonl');
  const fresh = await withFileLock(join(log.dir, 'overlaps.lock'), async () => {
    const lines = await readJsonLines(file).catch(() => ({ records: [] }));
    const warned = new Set(lines.records.map((r) => Warned.safeParse(r.value)).filter((r) => r.success).map((r) => `${r.data.path}\0${r.data.agents.join('\0')}`));
    const out: ChangeRecord[] = [];
    for (const c of others.values()) {
      const agents = [rec.agent, c.agent].sort() as [string, string];
      if (warned.has(`${rec.path}\0${agents.join('\0')}`)) continue;
      await appendJsonLine(file, { path: rec.path, agents, ts: Date.now() / 1000 });
      out.push(c);
    }
    return out;
  });
  const place = (c: ChangeRecord) => (c.root ? `in ${c.root}` : 'in the main checkout');
  // Not awaited: a teller gathers a batch (overlapNote) and the write that found the clash need not wait for it.
  for (const c of fresh) {
    void tell(rec.agent, c.agent, rec.path, place(c)).catch(() => undefined);
    void tell(c.agent, rec.agent, rec.path, place(rec)).catch(() => undefined);
  }
  return fresh.map((c) => c.agent);
}

/** How long notes to one agent about one other agent are gathered into one message (one reply's writes). */
export const OVERLAP_BATCH_MS = 1000;

/**
 * The notes, from the team (`from: "team"`, docs/file-formats.md "Messages"): one message per
 * pair of agents per batch — the files `other` also changed that `to` changed, each with where
 * — sent OVERLAP_BATCH_MS after the first. It wakes `to`.
 */
export function overlapNote(mailbox: Mailbox, batchMs = OVERLAP_BATCH_MS): OverlapTeller {
  const batches = new Map<string, { files: Map<string, string>; sent: Promise<void> }>();
  const send = async (to: string, other: string, files: Map<string, string>) => {
    const wheres = new Set(files.values());
    const list = wheres.size === 1
      ? `${[...files.keys()].join(', ')} (${[...wheres][0]})`
      : [...files].map(([p, w]) => `${p} (${w})`).join(', ');
    const them = files.size === 1 ? 'it' : 'them';
    await mailbox.send({
      from: 'team', to, type: 'message', overlap: { path: [...files.keys()][0], paths: [...files.keys()], with: other },
      content: `[overlap] ${other} also changed ${list}, and neither change has been merged into the other's branch: agree with ${other} (or the lead) who changes ${them}, before the two collide at merge time.`,
    });
  };
  return (to, other, path, where) => {
    const key = `${to}\0${other}`;
    const open = batches.get(key);
    if (open) {
      open.files.set(path, where);
      return open.sent;
    }
    const files = new Map([[path, where]]);
    const sent = new Promise<void>((resolve) => setTimeout(resolve, batchMs).unref?.()).then(() => {
      batches.delete(key);
      return send(to, other, files);
    });
    batches.set(key, { files, sent });
    return sent;
  };
}
