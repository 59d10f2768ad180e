// The lead hears the team finish (docs/file-formats.md, "Messages"): teammates' results and
// other notices do not wake an idle lead one by one; when the team goes quiet — no teammate
// working, nothing a live teammate could take from the board — a lead with such mail unread
// is woken once, with all of it. Checked a moment after the last change settles, so a
// teammate between going idle and taking its next task is not taken for quiet.
import type { Member } from '../../shared/team-schemas';
import { awaitingAnswer, planGateOf } from '../roles/plan-mode';
import type { Disposable } from '../team/dir-watcher';
import type { Team } from '../team/team';

export const QUIET_SETTLE_MS = 250;

/**
 * Whether the team is quiet now: nobody working, nothing claimable by a live teammate. One
 * that waits for its plan's answer takes nothing from the board meanwhile (roles/plan-mode.ts).
 */
export async function teamQuiet(team: Team): Promise<boolean> {
  const members = await team.roster.list();
  if (members.some((m) => m.status === 'working')) return false;
  const live = new Set(members.filter((m) => m.status !== 'shutdown').map((m) => m.name));
  if (!live.size) return true;
  const open = await team.tasks.select((t) => t.status === 'pending' && !t.blockedBy.length && (!t.owner || live.has(t.owner)));
  if (!open.length) return true;
  // Plans are read only when a task is open: most quiet checks end above.
  const free = await notAwaitingPlans(team, members.filter((m) => live.has(m.name)));
  return !open.some((t) => (t.owner ? free.has(t.owner) : free.size > 0));
}

/** The names of `members` not waiting for a plan's answer. */
async function notAwaitingPlans(team: Team, members: Member[]): Promise<Set<string>> {
  const names = new Set(members.map((m) => m.name));
  const pending = await team.requests.list({ kind: 'plan', status: 'pending' });
  if (!pending.some((p) => p.subject && names.has(p.subject))) return names;
  const plans = await team.requests.list({ kind: 'plan' });
  return new Set(members.filter((m) => !awaitingAnswer(planGateOf(m, plans.filter((p) => p.subject === m.name)))).map((m) => m.name));
}

/** Calls `wake` once per quiet spell in which the lead has mail it has not been woken for. */
export async function watchQuiet(team: Team, wake: () => void, settleMs = QUIET_SETTLE_MS): Promise<Disposable> {
  let timer: NodeJS.Timeout | undefined;
  let wokenUpTo = 0;
  const check = async () => {
    if (!(await teamQuiet(team))) return;
    const unread = await team.mailbox.unread('lead');
    // An approved shutdown is an answer the lead needs no turn for; results and other notices are news.
    if (!unread.messages.some((m) => m.type !== 'shutdown_response') || unread.cursor <= wokenUpTo) return;
    wokenUpTo = unread.cursor;
    wake();
  };
  const sub = await team.subscribe(() => {
    clearTimeout(timer);
    timer = setTimeout(() => void check().catch(() => undefined), settleMs);
  });
  return { dispose: () => (clearTimeout(timer), sub.dispose()) };
}
