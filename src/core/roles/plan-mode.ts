// Plan mode (docs/file-formats.md, "Plan mode"): whether a teammate may change the
// workspace now, and putting a running teammate into plan mode. The state lives in files
// only — the roster's `plan_mode` and the plan request records — so every host and every
// reload sees the same gate, from before the teammate's first model call.
import { randomBytes } from 'node:crypto';
import type { Member, Message, PlanMode, RequestRecord } from '../../shared/schemas';
import type { Team } from '../team/team';
import { assertTeammateName } from '../util/names';

/** Shown in the Team tree, the CLI and the transcript while the gate is closed. */
/** How a teammate waits for a plan's answer (a wait is a turn that ends; nothing to poll). */
export const HOW_TO_WAIT = 'To wait, end your turn (reply without a tool call): the answer wakes you.';

export const PLANNING_WORDS = 'planning — waiting for approval';

export type PlanGate =
  | { open: true }
  /** `pending`: the plan request awaiting a decision, if one was submitted. */
  | { open: false; planMode: boolean; pending: RequestRecord | null };

/**
 * The gate for `member` given its plan requests. In plan mode only an approved plan of
 * this incarnation, submitted under this plan mode for the current task, opens it; outside
 * plan mode a plan the teammate chose to submit closes it until approved.
 */
export function planGateOf(member: Member | undefined, plans: RequestRecord[]): PlanGate {
  const incarnation = member?.incarnation ?? 1;
  const mode = member?.plan_mode ?? null;
  const task = member?.current_task ?? null;
  const relevant = plans.filter((p) => p.kind === 'plan' && (p.incarnation ?? 1) === incarnation
    && (!mode || (p.plan_mode_id === mode.id && (p.task ?? null) === task)));
  const latest = relevant[relevant.length - 1];
  if (latest?.status === 'approved' || (!mode && !latest)) return { open: true };
  return { open: false, planMode: !!mode, pending: latest?.status === 'pending' ? latest : null };
}

/** Shown as "planning — waiting for approval": a live teammate held by plan mode. `plans`: any plan requests. */
export function isPlanning(member: Member, plans: RequestRecord[]): boolean {
  return !!member.plan_mode && member.status !== 'shutdown' && !planGateOf(member, plans.filter((p) => p.subject === member.name)).open;
}

export async function planGate(team: Team, name: string): Promise<PlanGate> {
  const member = await team.roster.get(name);
  const plans = await team.requests.list({ kind: 'plan', subject: name });
  return planGateOf(member, plans);
}

/** Whether the teammate waits for the answer to a plan it submitted (the gate closed on a pending plan). */
export function awaitingAnswer(gate: PlanGate): boolean {
  return !gate.open && gate.pending !== null;
}

/** How long a decided plan's answer may take to reach the inbox before the waiter stops waiting for it. */
export const ANSWER_MAIL_GRACE_MS = 5_000;

/**
 * Whether the answer to plan request `r` is on its way: decided on the request, its mail not in
 * `unread` yet. Team.decidePlan writes the request, then the mail; a waiter that looked between
 * the two would otherwise be handed its task again before it reads the answer.
 */
export function answerInTransit(r: RequestRecord, unread: readonly Message[], now = Date.now()): boolean {
  if (r.status === 'pending' || unread.some((m) => (m as { request_id?: string }).request_id === r.request_id)) return false;
  return now / 1000 - (r.updated_at ?? r.created_at) < ANSWER_MAIL_GRACE_MS / 1000;
}

/**
 * Whether `m` wakes a teammate that waits for its plan's answer: the answer, a shutdown
 * request, or a message the lead or the user sent to it. Anything else (a teammate's message,
 * a broadcast, its own job's or merge's note) stays unread in its inbox and comes with what
 * wakes it; nor does the board give it a task meanwhile (docs/file-formats.md, "Plan mode").
 */
export function wakesPlanWaiter(m: Message): boolean {
  if (m.type === 'plan_approval_response' || m.type === 'shutdown_request') return true;
  return m.type === 'message' && (m.from === 'lead' || m.from === 'user') && !(m as { notice?: boolean }).notice;
}

/** What a refused tool call tells the model. */
export function planRefusal(tool: string, gate: Exclude<PlanGate, { open: true }>): string {
  if (gate.pending) {
    return `${tool} is refused while your plan awaits approval (${gate.pending.request_id}): a plan must be approved first. ${HOW_TO_WAIT}`;
  }
  return `${tool} is refused: you are in plan mode, and a plan must be approved first`
    + ` for your current task. Read and investigate, then submit your plan with plan_approval. ${HOW_TO_WAIT}`;
}

export function newPlanMode(by: string, reason?: string | null): PlanMode {
  return { id: `pm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`, by, since: Date.now() / 1000, ...(reason ? { reason } : {}) };
}

export class PlanModeError extends Error {}

/**
 * Puts a running teammate into plan mode and tells it why. A tool call already past the
 * gate finishes (file writes are atomic, a command is never cut mid-way by this); every
 * call that starts after this roster write is refused — on any host.
 */
export async function requestPlan(team: Team, by: string, teammate: string, reason?: string | null): Promise<Member> {
  assertTeammateName(teammate);
  const current = await team.roster.get(teammate);
  if (!current || current.status === 'shutdown') throw new PlanModeError(`${teammate} is not running: spawn it with plan mode instead`);
  const mode = newPlanMode(by, reason);
  const member = await team.roster.patch(teammate, { plan_mode: mode });
  await team.mailbox.send({
    from: by, to: teammate, type: 'message',
    content: `${by} put you in plan mode${reason ? `: ${reason}` : ''}. File edits, shell commands and background jobs are refused until a plan for your current task is approved. Investigate read-only, then submit your plan with plan_approval and wait for the answer.`,
  });
  return member;
}

/** The words the model hears at spawn when it starts in plan mode. */
export const PLAN_MODE_START = 'You start in plan mode: file edits, shell commands and background jobs are refused until you submit a plan with plan_approval and it is approved. An approval counts for your current task only; a task you claim later needs a new plan.';
