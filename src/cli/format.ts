// Plain-text rendering of team state, shared by the subcommands and the REPL so `agent-teams
// tasks` and `/tasks` look the same. Task lines keep the learn-claude-code tutorial's `[ ] [>] [x]` board.
import type { Member, Message, RequestRecord, Task, TeamConfig, Usage } from '../shared/schemas';
import { DEFAULT_SETTINGS, estimateCost, formatCost, isPlanning, type JobInfo, leadUsage, modelWords, PLANNING_WORDS, usageTotal } from '../core/session';
import { terminalSafe } from './io';

const BOX: Record<Task['status'], string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' };

export function tokens(n: number): string {
  return `${n.toLocaleString('en-US')} tok`;
}

export function taskLine(t: Task): string {
  const parts = [`${BOX[t.status]} #${t.id}: ${t.subject}`];
  if (t.owner) parts.push(`@${t.owner}`);
  if (t.blockedBy.length) parts.push(`(blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')})`);
  if (t.files?.length) parts.push(`files: ${t.files.join(', ')}`);
  return parts.join('  ');
}

export function taskBoard(tasks: Task[]): string {
  if (!tasks.length) return 'No tasks.';
  const done = tasks.filter((t) => t.status === 'completed').length;
  return [...tasks.map(taskLine), `${done}/${tasks.length} completed`].join('\n');
}

/** Rows as aligned columns, one line each (terminal-safe). */
export function table(rows: string[][]): string {
  return pad(rows).join('\n');
}

function pad(rows: string[][]): string[] {
  // One line per row whatever a cell holds; columns by display width (CJK and emoji take two).
  const cells = rows.map((r) => r.map((c) => terminalSafe(c.replace(/\s*[\r\n]+\s*/g, ' '))));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(c))));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - displayWidth(c)))).join('  ').trimEnd());
}

const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** Columns `s` takes in a terminal: wide (East Asian, emoji) characters count two. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += WIDE.test(ch) ? 2 : 1;
  return w;
}

/** Tokens, with "usage unknown" for calls whose provider reported none (docs/models.md). */
function usageCell(u: Usage | undefined): string {
  const t = tokens(usageTotal(u));
  return u?.unreported ? (usageTotal(u) ? `${t} + usage unknown` : 'usage unknown') : t;
}

/** The model with its provider; '-' when none is known. */
const named = (model: string): string => (model === '-' ? model : modelWords(model));

/**
 * The roster as a table. `status` may replace the file's status with something finer
 * (the REPL knows what a local agent is doing, and which members another host runs).
 */
/**
 * `plans`: the plan requests, so a teammate held by plan mode reads "planning — waiting for
 * approval"; `model`: the team's model, shown (and priced) for members without their own.
 */
export function rosterTable(
  config: TeamConfig, status: (m: Member) => string = (m) => m.status, leadStatus = '-', plans: RequestRecord[] = [], model = '-',
): string {
  const words = (m: Member) => (isPlanning(m, plans) ? `${status(m)}, ${PLANNING_WORDS}` : status(m));
  const price = model === '-' ? DEFAULT_SETTINGS.model : model;
  const header = `Team "${config.team_name}": ${config.members.length} teammate${config.members.length === 1 ? '' : 's'}`;
  const lead = leadUsage(config);
  const rows = [
    ['name', 'role', 'status', 'task', 'tokens', 'model', 'cost'],
    ['lead', 'lead', leadStatus, '-', usageCell(lead), named(model), formatCost(estimateCost(price, lead))],
    ...config.members.map((m) => [
      m.name, m.role, words(m), m.current_task ? `#${m.current_task}` : '-', usageCell(m.usage), named(m.model ?? model),
      formatCost(estimateCost(m.model ?? price, m.usage)),
    ]),
  ];
  return [header, ...pad(rows).map((l) => `  ${l}`)].join('\n');
}

function clock(seconds: number, withDate: boolean): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  return withDate ? `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${time}` : time;
}

/** `[plan_approval_response req_x approved]`-style tag carrying the protocol fields. */
function typeTag(m: Message): string {
  const r = m as Record<string, unknown>;
  const bits: string[] = [m.type];
  if (typeof r.request_id === 'string') bits.push(r.request_id);
  if (typeof r.approve === 'boolean') bits.push(r.approve ? 'approved' : 'rejected');
  return `[${bits.join(' ')}]`;
}

/** One message: a header line, then the content indented (multi-line content stays readable). */
export function messageText(m: Message, withDate = true): string {
  const head = `${clock(m.timestamp, withDate)}  ${m.from} -> ${m.to}  ${typeTag(m)}`;
  const body = m.content.split('\n').map((l) => `    ${l}`);
  return [head, ...body].join('\n');
}

export function inboxText(name: string, messages: Message[]): string {
  if (!messages.length) return `No messages to ${name}.`;
  return messages.map((m) => messageText(m)).join('\n');
}

export function requestLine(r: RequestRecord): string {
  const about = r.subject && r.subject !== r.from && r.subject !== r.to ? ` about ${r.subject}` : '';
  return `${r.request_id}  ${r.kind} from ${r.from} to ${r.to}${about}  (${r.status})`;
}

export function requestsText(records: RequestRecord[]): string {
  return records.length ? records.map(requestLine).join('\n') : 'No pending requests.';
}

/** A pending plan addressed to the user, with what to type to answer it. */
export function planNotice(r: RequestRecord): string {
  return [
    `Plan from ${r.from} awaits your approval (${r.request_id}):`,
    ...(r.plan ?? '').split('\n').map((l) => `    ${l}`),
    `  /approve ${r.request_id} [feedback]   or   /reject ${r.request_id} <feedback>`,
  ].join('\n');
}
/** /jobs: one line per background job, grouped by agent. */
export function jobsText(jobs: JobInfo[], now = Date.now()): string {
  if (!jobs.length) return 'No background jobs.';
  const state = (j: JobInfo) => j.state === 'running'
    ? `running ${Math.round((now - j.startedAt) / 1000)} s`
    : j.state === 'killed' ? 'killed' : j.exitCode !== null ? `exit ${j.exitCode}` : `signal ${j.signal}`;
  return [...jobs].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : a.startedAt - b.startedAt))
    .map((j) => `${j.owner}  ${j.id}  ${state(j)}  ${terminalSafe(j.command.split('\n')[0]!.slice(0, 100))}`).join('\n');
}
