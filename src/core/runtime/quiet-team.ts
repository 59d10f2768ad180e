// The lead hears the team finish (docs/file-formats.md, "Messages"): teammates' results and
// other notices do not wake an idle lead one by one; when the team goes quiet — no teammate
// working, nothing a live teammate could take from the board, no merge being tested — a lead
// with such mail unread, or with work left it was not told of (work-left.ts), is woken once,
// with all of it. Checked a moment after the last change settles, so a teammate between going
// idle and taking its next task is not taken for quiet. A headless run ends when it is at rest.
import type { Member } from '../../shared/schemas';
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import { awaitingAnswer, planGateOf } from '../roles/plan-mode';
import type { Disposable } from '../team/dir-watcher';
import type { Team } from '../team/team';
import { quietNote } from './prompts';
import { queueBusy, workLeft, type LeftItem } from './work-left';

export const QUIET_SETTLE_MS = 250;

/**
 * How long a wake waits for worktree removals, so the lead reads them in the same turn. Deleting
 * a checkout with a copied node_modules took ~50 s on a loaded machine in the bridge runs: the
 * lead is not kept waiting for that; the notice then comes with its next turn, waking nobody.
 */
export const TIDY_WAIT_MS = 1500;

/**
 * Whether the team is quiet now: nobody working, no shutdown the lead asked for left to answer,
 * nothing claimable by a live teammate. One
 * that waits for its plan's answer takes nothing from the board meanwhile (roles/plan-mode.ts).
 */
export async function teamQuiet(team: Team): Promise<boolean> {
  const members = await team.roster.list();
  if (members.some((m) => m.status === 'working')) return false;
  const live = new Set(members.filter((m) => m.status !== 'shutdown').map((m) => m.name));
  if (!live.size) return true;
  // A live teammate asked to shut down has yet to answer (asked again once its fixed branch
  // landed, say): its answer wakes the lead with everything, so a quiet wake now would be a
  // call of the lead's spent on half the news.
  if ((await team.requests.list({ kind: 'shutdown', status: 'pending', from: 'lead' })).some((r) => r.to !== undefined && live.has(r.to))) return false;
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

/** What the lead reads when every shutdown it asked for was answered and those teammates are gone. */
export const SHUTDOWNS_ANSWERED = 'Every shutdown you requested has been answered, and those teammates have stopped:';

/**
 * The lead's inbox cursor after its unread shutdown answers, when they answer every shutdown
 * it asked for and each teammate that approved has shut down (its worktree is free then);
 * else 0. While another teammate still works, 0: the lead, waiting on it, would only end its
 * turn (a call spent on half the news); the quiet wake then brings the answers with its result.
 */
async function shutdownsAnswered(team: Team): Promise<number> {
  const unread = await team.mailbox.unread('lead');
  const answers = unread.messages.filter((m) => m.type === 'shutdown_response');
  // A refusal wakes the lead by itself (team.ts): this wake is for approvals.
  if (!answers.some((m) => (m as { approve?: boolean }).approve) || (await team.requests.list({ kind: 'shutdown', status: 'pending', from: 'lead' })).length) return 0;
  const members = new Map((await team.roster.list()).map((m) => [m.name, m.status]));
  if ([...members.values()].includes('working')) return 0;
  const gone = answers.every((m) => !(m as { approve?: boolean }).approve || members.get(m.from) === 'shutdown');
  return gone ? unread.cursor : 0;
}

export interface QuietDeps {
  team: Team;
  /** The merge queue's entries (an entry being tested is work in flight). */
  queue(): Promise<MergeEntry[]>;
  /** Whether the lead is in a turn (or about to start one): the turn's end checks again (recheck). */
  leadBusy(): boolean;
  /** Starts a lead turn opening with `note` (prompts.ts quietNote), then the mail that waited. */
  wake(note: string, left: number): void;
  /** Whether a teammate's background job is running that it waits for (jobs.ts waitedFor): not quiet then. */
  jobsBusy?(): boolean;
  /** Removes the worktrees of shut-down teammates whose branches landed (worktree-tidy.ts); a wake waits for it a moment (TIDY_WAIT_MS). */
  tidy?(): Promise<unknown>;
  /** Whether a removal is under way: not at rest then (a headless run does not end with a checkout half deleted). */
  tidyBusy?(): boolean;
  settleMs?: number;
}

/** What a look at the team finds: at rest (nothing in flight), and what is left undone. */
export interface TeamRest {
  atRest: boolean;
  left: LeftItem[];
}

export interface QuietWatch extends Disposable {
  /** Looks again after the settle delay (the lead's turns ended). */
  recheck(): void;
  /** Whether nothing is in flight now — lead between turns, team quiet, queue idle, no wake due — and what is left. */
  rest(): Promise<TeamRest>;
}

interface Look {
  quiet: boolean;
  left: LeftItem[];
  key: string;
  /** The lead's inbox cursor after its unread news (results, notices), or 0 when it has none. */
  news: number;
}

/**
 * Wakes the lead once per quiet spell in which it has news it was not woken for (results,
 * notices), and whenever the team is quiet with work left that differs from what it was last
 * told (work-left.ts): never twice for the same state, so a lead that leaves work undone on
 * purpose is not woken over and over. Nothing is looked at while the lead is in a turn.
 */
export async function watchQuiet(d: QuietDeps): Promise<QuietWatch> {
  const { team } = d;
  let timer: NodeJS.Timeout | undefined;
  let wokenUpTo = 0;
  let toldKey = '';
  const look = async (): Promise<Look> => {
    const entries = await d.queue().catch(() => []);
    const quiet = !queueBusy(entries) && !d.jobsBusy?.() && (await teamQuiet(team));
    if (!quiet) return { quiet, left: [], key: '', news: 0 };
    const left = await workLeft(team, entries);
    const unread = await team.mailbox.unread('lead');
    // An approved shutdown is an answer the lead needs no turn for (the last one wakes it: team.ts), nor is a worktree
    // removed for it (worktree-tidy.ts); results and other notices are news.
    const news = unread.messages.some((m) => m.type !== 'shutdown_response' && !(m as { tidied?: unknown }).tidied) ? unread.cursor : 0;
    return { quiet, left, key: left.map((i) => i.key).join('\n'), news };
  };
  const due = (l: Look) => l.quiet && (l.news > wokenUpTo || (l.left.length > 0 && l.key !== toldKey));
  const tidied = () => (d.tidy ? Promise.race([d.tidy(), new Promise((r) => setTimeout(r, TIDY_WAIT_MS).unref?.())]) : undefined);
  const check = async () => {
    // Whatever the lead is doing: a landed branch of a teammate that has gone costs it no call.
    await tidied();
    if (d.leadBusy()) return;
    const answered = await shutdownsAnswered(team);
    // Not while the queue still tests a branch: the lead reads the answers and the landings in one turn.
    if (answered > wokenUpTo && !d.leadBusy() && !queueBusy(await d.queue().catch(() => []))) {
      // A branch that landed since the first look: its worktree goes before the lead reads the news.
      await tidied();
      if (d.leadBusy()) return;
      wokenUpTo = answered;
      return d.wake(SHUTDOWNS_ANSWERED, 1);
    }
    const l = await look();
    if (!l.quiet || d.leadBusy()) return;
    if (!due(l)) {
      toldKey = l.key; // work that went away may come back: told again then
      return;
    }
    await tidied();
    if (d.leadBusy()) return;
    wokenUpTo = Math.max(wokenUpTo, l.news);
    toldKey = l.key;
    d.wake(quietNote(l.left), l.left.length);
  };
  const recheck = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void check().catch(() => undefined), d.settleMs ?? QUIET_SETTLE_MS);
  };
  const sub = await team.subscribe(recheck);
  return {
    recheck,
    async rest() {
      if (d.leadBusy() || d.tidyBusy?.() || (await shutdownsAnswered(team)) > wokenUpTo) return { atRest: false, left: [] };
      const l = await look();
      return { atRest: l.quiet && !due(l) && !d.leadBusy(), left: l.left };
    },
    dispose: () => (clearTimeout(timer), sub.dispose()),
  };
}
