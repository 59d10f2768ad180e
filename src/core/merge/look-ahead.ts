// The merge queue's next merge made early (docs/file-formats.md, "Merge queue"): while an
// entry's test runs, the first open entry after it is merged onto that entry's merge commit —
// the tip the workspace branch will have if the entry lands. It is used only if the entry
// landed onto exactly that tip, the entry is still first when claimed, and its branch has not
// moved since; else it is merged again. What lands is always exactly what was tested.
import type { MergeEntry } from '../../shared/merge-queue-schema';
import { isOpen } from '../../shared/merge-queue-schema';
import { mergeCommit, type MergeResult, type Objects, type QueueGit } from './integrate';

export type Merged = Extract<MergeResult, { kind: 'merged' }>;

export interface MadeAhead {
  id: string;
  branch: string;
  m: Merged;
}

export const mergeMessage = (e: MergeEntry, into: string): string => `Merge ${e.branch} (teammate ${e.teammate}) into ${into}`;

export class LookAhead {
  private ahead: { into: string; base: string; made: Promise<MadeAhead | null> } | null = null;

  /** Starts merging the first open entry of `entries()` other than `after` onto `base` (a commit of branch `into`-to-be). */
  start(after: MergeEntry, into: string, base: string, entries: () => Promise<MergeEntry[]>, top: string, identity: string[], g: QueueGit, objects: Objects): void {
    const made = (async () => {
      const next = (await entries()).find((x) => isOpen(x) && x.id !== after.id);
      if (next?.state !== 'queued' || !next.test_command) return null;
      const m = await mergeCommit(top, base, next.branch, mergeMessage(next, into), identity, g, objects);
      return m.kind === 'merged' ? { id: next.id, branch: next.branch, m } : null;
    })().catch(() => null);
    this.ahead = { into, base, made };
  }

  /** The commit the merge made ahead has, once made (null: none). */
  commit(): Promise<string | null> {
    return this.ahead?.made.then((x) => x?.m.commit ?? null) ?? Promise.resolve(null);
  }

  /**
   * The merge made ahead, if it was made onto `onto` (the tip the workspace branch has now)
   * and its branch is still at the commit it merged; forgotten either way.
   */
  async take(onto: { into: string; base: string } | null, objects: Objects | null): Promise<MadeAhead | null> {
    const a = this.ahead;
    this.ahead = null;
    if (!a || !onto || !objects || a.into !== onto.into || a.base !== onto.base) return null;
    const made = await a.made;
    if (!made) return null;
    const tip = await objects.reader.commitOf(`refs/heads/${made.branch}`).catch(() => null);
    return tip === made.m.tip ? made : null;
  }

  clear(): void {
    this.ahead = null;
  }
}
