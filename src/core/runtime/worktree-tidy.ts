// Worktrees that go away by themselves (README "Worktree isolation"): once a teammate has shut
// down and its branch has landed through the merge queue — still merged into the current
// branch, nothing uncommitted, no ignored file it made — its checkout and branch hold nothing the user's branch lacks. The
// runner removes them (the worktree module's own refusals still hold: it never forces) and
// tells the lead in one notice, which does not wake it: in the bridge runs the lead spent one
// call per worktree_remove on this. A teammate spawned again later gets a fresh worktree.
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import { worktreeViews } from '../worktree/in-use';
import type { RuntimeEvent } from './types';

export interface TidyDeps {
  team: Team;
  worktrees: WorktreeManager;
  /** The merge queue's entries: "landed" means its last entry merged (a merge by hand leaves the worktree to the user). */
  queue(): Promise<MergeEntry[]>;
  emit(e: RuntimeEvent): void;
}

/** The teammates whose latest merge-queue entry landed. */
function landedBy(entries: readonly MergeEntry[]): Set<string> {
  const last = new Map<string, MergeEntry>();
  for (const e of entries) last.set(e.teammate, e);
  return new Set([...last.values()].filter((e) => e.state === 'merged').map((e) => e.teammate));
}

/** What the lead reads when worktrees were removed for it. */
export function tidiedWords(names: readonly string[]): string {
  const list = names.join(', ');
  return `[worktrees] Removed the worktree and branch of ${list}: ${names.length === 1 ? 'its branch has' : 'their branches have'} landed and ${names.length === 1 ? 'it has' : 'they have'} shut down, so nothing was lost. Nothing to do.`;
}

/**
 * A tidier for one runner: each call removes what is removable now and resolves to the names
 * removed. Calls made while one runs share it; a worktree whose removal was refused (an ignored
 * file the teammate made, say) is left to the user and not tried again by this runner.
 */
export interface Tidier {
  /** Removes what is removable now; resolves to the names removed. */
  (): Promise<string[]>;
  /** Whether a removal is under way. */
  busy(): boolean;
}

export function worktreeTidier(d: TidyDeps): Tidier {
  let running: Promise<string[]> | null = null;
  const refused = new Set<string>();
  const tidy = async (): Promise<string[]> => {
    const members = await d.team.roster.list();
    const landed = landedBy(await d.queue());
    const down = new Set(members.filter((m) => m.status === 'shutdown' && landed.has(m.name)).map((m) => m.name));
    // Cheap look first: branch states (git) are read only when a shut-down teammate has a checkout.
    const candidates = (await d.worktrees.list()).filter((w) => w.status === 'active' && down.has(w.name) && !refused.has(w.name));
    if (!candidates.length) return [];
    const names = new Set(candidates.map((w) => w.name));
    const removable = (await worktreeViews(d.team, d.worktrees)).filter((v) => names.has(v.name) && v.removable);
    const removed: string[] = [];
    for (const w of removable) {
      try {
        // Dependencies and caches its tests made (node_modules/.cache…) are not its work.
        await d.worktrees.remove(w.name, { regenerableGo: true });
        removed.push(w.name);
      } catch (err) {
        refused.add(w.name);
        // Said where it is read: a warning (a headless run prints it) and one notice to the lead, which does not wake it.
        const why = `Kept the worktree of ${w.name} (landed, shut down): ${(err as Error).message}.`;
        d.emit({ type: 'notice', level: 'warning', agent: w.name, message: why });
        await d.team.mailbox.send({ from: 'team', to: 'lead', type: 'message', content: `[worktrees] ${why} Only the user can remove it now (agent-teams worktree remove ${w.name} --force); say so in your summary.`, notice: true }).catch(() => undefined);
      }
    }
    if (!removed.length) return removed;
    d.emit({ type: 'notice', level: 'info', agent: 'lead', message: `Removed the worktrees of ${removed.join(', ')} (landed, shut down).` });
    await d.team.mailbox.send({ from: 'team', to: 'lead', type: 'message', content: tidiedWords(removed), notice: true, tidied: removed }).catch(() => undefined);
    return removed;
  };
  const run = () => (running ??= tidy().catch(() => [] as string[]).finally(() => (running = null)));
  return Object.assign(run, { busy: () => running !== null });
}
