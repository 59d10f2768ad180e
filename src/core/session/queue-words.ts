// How a merge-queue entry is put in words, the same in the Team tree, `agent-teams queue` and
// /queue: its state, and what the user needs to know about it (why it waits or failed, what landed).
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import { isOpen } from '../../shared/schemas/merge-queue';
import { git } from '../worktree/git';

/** One short phrase: "queued (2nd)", "testing", "waiting: …", "merged a1b2c3d4e5", "failed: …". */
export function entryWords(e: MergeEntry, position?: number): string {
  switch (e.state) {
    case 'queued': return position ? `queued (#${position} in line)` : 'queued';
    case 'testing': return e.waiting ? `waiting: ${e.waiting}` : e.test_command ? `testing: ${e.test_command}` : 'merging';
    case 'merged': return `merged${e.commit ? ` ${e.commit.slice(0, 10)}` : ''}${e.into ? ` into ${e.into}` : ''}${e.reason ? ` (${e.reason})` : ''}`;
    case 'failed': return `failed: ${e.reason ?? 'unknown reason'}`;
    case 'cancelled': return 'cancelled';
  }
}

/** How the entry's scratch checkout was prepared, in words (null: not tested in one yet). */
export function preparedWords(e: MergeEntry): string | null {
  const p = e.prepared;
  if (!p) return null;
  const mode = { setup: 'worktree.setup ran', copy: 'worktree.copy brought over', shared: 'dependencies shared', none: 'plain checkout' }[p.mode];
  return `${mode}: ${p.detail}`;
}

/** Each open entry's place in line (1 = being worked or next). */
export function positions(entries: readonly MergeEntry[]): Map<string, number> {
  return new Map(entries.filter(isOpen).map((e, i) => [e.id, i + 1]));
}

/** What the views list: every open entry, and each teammate's latest finished one. */
export function shownEntries(entries: readonly MergeEntry[]): MergeEntry[] {
  const latest = new Map<string, MergeEntry>();
  for (const e of entries) latest.set(e.teammate, e);
  return entries.filter((e) => isOpen(e) || latest.get(e.teammate) === e);
}

/** A file as it is in a commit of the repository at `root` ('' where it does not exist): the merge diff's two sides. */
export async function fileAtCommit(root: string, rev: string, file: string): Promise<string> {
  const r = await git(['show', `${rev}:${file}`], { cwd: root, allowFail: true });
  return r.code === 0 ? r.stdout : '';
}
