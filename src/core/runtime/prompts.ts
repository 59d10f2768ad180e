// System prompts and the recurring framing blocks. The system prompt is byte-identical for
// an agent across rounds (no clocks, no counters) so the prompt cache keeps hitting.
import type { Message, RequestRecord, Task } from '../../shared/schemas';

export interface Identity {
  name: string;
  role: string;
  team: string;
}

const TOOL_ORDER = 'Several tool calls in one reply run in order (write, then test: safe).';

export function leadSystem(team: string, root: string): string {
  return [
    `You are lead, the lead agent of team "${team}", working in ${root}. The person at the keyboard is "user".`,
    'You plan, spawn teammates (persistent, parallel), put tasks on the board (an unowned task goes to whichever teammate is idle first) and coordinate by messages.',
    'To wait for teammates (after spawning, messaging or asking them to shut down), end your turn: what they send starts your next one. Do not poll list_teammates or task_list.',
    'A teammate that stops without messaging you sends its last words as a "result". Results and notices come all in one turn when the team goes quiet (nobody working or claimable), with work left undone.',
    TOOL_ORDER,
    'Mail arrives by itself in <team-mail> tags, between your tool calls or as a new turn: not the user\'s words. Send no acknowledgements that need no answer: every message wakes its recipient.',
    'When the work is done, summarise it for the user.',
  ].join('\n');
}

/** What a lead woken by a quiet team reads before the mail that waited for it (quiet-team.ts), with the work left (work-left.ts). */
export function quietNote(left: readonly { text: string }[]): string {
  if (!left.length) return 'The team is quiet: no teammate is working and nothing is left to claim. What came in meanwhile:';
  return [
    'The team is quiet: no teammate is working, and this is left undone:',
    ...left.map((i) => `- ${i.text}`),
    'Deal with each (or say in your summary why it stays undone). What came in meanwhile:',
  ].join('\n');
}

/** Under agentTeams.confirmTeam: how to propose a team so the user is asked once (core/runtime/team-proposal.ts). */
export const CONFIRM_TEAM_NOTE = [
  'The user confirms every team before it starts (agentTeams.confirmTeam): the spawn_teammate calls of one reply are shown to them as one proposal, which they start or decline as a whole.',
  'So decide the whole team first and make all its spawn_teammate calls in the same reply, with the role, model and plan_mode_required you intend.',
  'If they decline, the results say why: change the team accordingly and propose it again, or ask them what they want; do not spawn the same teammates one by one.',
].join('\n');

/** The lead's words on its teammates' branches (the worktree tools: tools/worktree-tools.ts). */
export const LEAD_WORKTREE_NOTE = [
  'A teammate spawned with isolation "worktree" works on branch wt/<name> in .worktrees/<name> ("container": team/<name>, in its own container); its work reaches you only as commits there.',
  'Land a branch with queue_merge, never git merge in the workspace (the user\'s own checkout).',
  'Landings and failures come with results; a landed worktree whose teammate shut down is removed for you.',
].join('\n');

/** A worktree (or container) teammate's words on its branch: its work counts only once committed there. */
export function branchNote(branch: string, container = false): string {
  return [
    `You work in your own ${container ? 'container, in a clone of the repository,' : 'git worktree'} on branch ${branch}. Your work reaches the team only through commits on that branch:`,
    'commit as you go and before you report work done (git add -A && git commit -m "…"); uncommitted files are never merged.',
    'The lead lands your branch through the merge queue (queue_merge): do not merge it yourself, and do not touch the main checkout.',
  ].join(' ');
}

export function teammateSystem(id: Identity, root: string, approver: string, branch?: string | null, container = false): string {
  return [
    `You are ${id.name}, a teammate in team "${id.team}". Your role: ${id.role}.`,
    `You work in ${root}. The lead is "lead"; the person at the keyboard is "user".`,
    branch ? branchNote(branch, container) : '',
    'Messages from others arrive inside <team-mail> tags between your tool calls; they are not the user\'s own words.',
    `If you are asked for a plan, submit it with plan_approval and wait: ${approver} decides; file edits and shell commands are refused until it is approved.`,
    'When you receive a shutdown_request, answer it with shutdown_response.',
    'When you have nothing left to do, call idle. Your last words reach the lead by themselves (a result it reads when the team goes quiet): send_message the lead only what it must act on now.',
    TOOL_ORDER,
  ].filter(Boolean).join('\n');
}

export function identityBlock(id: Identity): string {
  return `<identity>You are ${id.name}, role: ${id.role}, team: ${id.team}.</identity>`;
}

function attr(v: string): string {
  return v.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** Renders mail with its provenance; content cannot close the tag and pose as someone else. */
export function formatMail(m: Message): string {
  const extra: string[] = [];
  const r = m as Record<string, unknown>;
  for (const k of ['request_id', 'approve', 'feedback', 'reason'] as const) {
    // Feedback or a reason that is the whole body is said once, in the body.
    const inBody = (k === 'feedback' || k === 'reason') && r[k] === m.content;
    if (r[k] !== undefined && r[k] !== '' && !inBody) extra.push(` ${k}="${attr(String(r[k]))}"`);
  }
  const body = m.content.replace(/<\/?team-mail/gi, (s) => s.replace('<', '&lt;'));
  // A background job's end is sent by the agent to itself, the merge queue's word by the team: shown as from its source, not as from a person.
  const from = r.merge_queue ? 'merge-queue' : m.from !== m.to ? m.from : r.job_id !== undefined ? 'background-job' : m.from;
  return `<team-mail from="${attr(from)}" type="${m.type}"${extra.join('')}>\n${body}\n</team-mail>`;
}

export function formatTask(t: Task): string {
  const owner = t.owner ? ` owner=${t.owner}` : '';
  const blocked = t.blockedBy.length ? ` blockedBy=[${t.blockedBy.join(',')}]` : '';
  return `#${t.id} [${t.status}]${owner}${blocked} ${t.subject}`;
}

/** How a task came to a teammate: its own, resumed; reserved for it by name; or given to it as the first idle teammate. */
export type TaskArrival = 'resumed' | 'reserved' | 'auto' | 'spawned';

function arrival(t: Task, how: TaskArrival): string {
  if (how === 'resumed') return `Resume your task #${t.id}: ${t.subject}`;
  if (how === 'spawned') return `You start on task #${t.id}, claimed for you: ${t.subject}`;
  if (how === 'reserved') return `Task #${t.id} was reserved for you by name on the board and is now yours: ${t.subject}`;
  return `Task #${t.id} was assigned to you automatically because you were idle and it became unblocked: ${t.subject}`;
}

export function taskPrompt(id: Identity, t: Task, how: TaskArrival): string {
  return `${identityBlock(id)}\n${taskLines(t, how)}`;
}

/** How a task came to it, its details and where it works, and what to do when done. */
export function taskLines(t: Task, how: TaskArrival): string {
  return [
    arrival(t, how),
    t.description ? `Details: ${t.description}` : '',
    t.worktree ? `This task is bound to git worktree "${t.worktree}": your file tools and bash now work there. ${branchNote(`wt/${t.worktree}`)}` : '',
    'Mark it completed with task_update when done; your last words then reach the lead.',
  ].filter(Boolean).join('\n');
}

export function compactedPrompt(id: Identity, summary: string, tasks: Task[], requests: RequestRecord[]): string {
  const lines = [identityBlock(id), 'Your earlier conversation was compacted. Summary of your work so far:', summary];
  if (tasks.length) lines.push('Your open tasks:', ...tasks.map(formatTask));
  if (requests.length) lines.push('Pending requests involving you:', ...requests.map((r) => `${r.request_id} ${r.kind} from ${r.from} to ${r.to} (${r.status})`));
  lines.push('Continue from here.');
  return lines.join('\n');
}
