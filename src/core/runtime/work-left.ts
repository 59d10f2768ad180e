// What a quiet team left undone (docs/headless.md):
// tasks nobody can take — their owner shut down or idled out, blocked, or no teammate free —,
// tasks held by a teammate that is not working on them, plans waiting for an answer, and
// merge-queue entries that failed or wait. The lead is woken with this list when the team
// goes quiet (quiet-team.ts); a headless run that ends with it exits 1 and prints it
// (`blocked`). Each item has a key that stays the same while the item does, so the lead is
// woken again only when something changed.
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { Member, Task } from '../../shared/schemas';
import type { Team } from '../team/team';

export interface LeftItem {
  /** Stable while the item is unchanged (the quiet watch wakes the lead for new ones only). */
  key: string;
  /** One line for the lead and the run's report. */
  text: string;
}

/** `spawn_teammate` with the same name resumes a teammate's conversation (spawner.ts). */
const respawn = (name: string) => `spawn_teammate "${name}" again (same name: its conversation is resumed) or reassign it (task_update owner)`;

function taskItem(t: Task, members: Map<string, Member>, free: boolean): LeftItem {
  const head = `task #${t.id} "${t.subject}"`;
  const owner = t.owner ? members.get(t.owner) : undefined;
  const last = typeof t.last_owner === 'string' ? t.last_owner : '';
  const key = `task:${t.id}:${t.status}:${t.owner}:${t.blockedBy.join(',')}`;
  if (t.status === 'in_progress') {
    return { key, text: `${head} is in progress with ${t.owner}, who is not working on it: message ${t.owner}, or ${respawn(t.owner)}.` };
  }
  if (t.owner && (!owner || owner.status === 'shutdown')) return { key, text: `${head} is reserved for ${t.owner}, who has shut down: ${respawn(t.owner)}.` };
  if (t.blockedBy.length) return { key, text: `${head} is blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')}.` };
  if (last && members.get(last)?.status === 'shutdown') {
    return { key: `${key}:${last}`, text: `${head} went back to the board unfinished when ${last} shut down, and nobody took it: ${respawn(last)}.` };
  }
  return { key, text: `${head} is pending and ${free ? 'nobody took it' : 'no teammate is free to take it'}: spawn a teammate for it or assign it (task_update owner).` };
}

function queueItem(e: MergeEntry): LeftItem | null {
  const head = `merge queue: ${e.teammate}'s branch ${e.branch}`;
  if (e.state === 'failed') return { key: `queue:${e.id}:failed`, text: `${head} failed${e.reason ? ` (${e.reason})` : ''}: have ${e.teammate} fix its branch and queue_merge again, or retry it.` };
  if (e.state === 'queued' && e.waiting) return { key: `queue:${e.id}:waiting`, text: `${head} is tested and waits: ${e.waiting}` };
  return null;
}

/** Whether the merge queue is still working on something (an entry being tested, or queued and not held). */
export function queueBusy(entries: readonly MergeEntry[]): boolean {
  return entries.some((e) => e.state === 'testing' || (e.state === 'queued' && !e.waiting));
}

/**
 * What is left undone now, for a team in which nobody works. `entries`: the merge queue's;
 * only each teammate's latest entry counts (a later one supersedes a failure).
 */
export async function workLeft(team: Team, entries: readonly MergeEntry[]): Promise<LeftItem[]> {
  const list = await team.roster.list();
  const members = new Map(list.map((m) => [m.name, m]));
  const free = list.some((m) => m.status === 'idle');
  const tasks = await team.tasks.select((t) => t.status === 'pending' || (t.status === 'in_progress' && members.get(t.owner)?.status !== 'working'));
  const items = tasks.map((t) => taskItem(t, members, free));
  for (const p of await team.requests.list({ kind: 'plan', status: 'pending' })) {
    const who = p.to === 'lead' ? `your answer (plan_approval request_id "${p.request_id}")` : `the ${p.to}'s answer`;
    items.push({ key: `plan:${p.request_id}`, text: `${p.from}'s plan waits for ${who}.` });
  }
  const latest = new Map<string, MergeEntry>();
  for (const e of entries) latest.set(e.teammate, e);
  for (const e of latest.values()) {
    const item = queueItem(e);
    if (item) items.push(item);
  }
  return items;
}
