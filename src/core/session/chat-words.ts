// What the @team chat participant says (docs/models.md, "@team in the Chat view"), as pure
// functions over the team's state and events, so it is unit-tested without VS Code: a progress
// line for what an agent starts doing, /status and /tasks as markdown, and /spawn's arguments.
import type { Member, RequestRecord, Task, TeamConfig } from '../../shared/schemas';
import type { Activity, RuntimeEvent, SpawnInput } from '../runtime/types';
import { activityWords, modelWords, spendWords, leadUsage } from './team-words';

const clip = (s: string, n = 80): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** Inline code that model text cannot break out of. */
const code = (s: string): string => `\`${clip(s.replace(/[`\r\n]+/g, ' '))}\``;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** "alice is running `npm test`" for a tool an agent starts; undefined for what is not worth a line. */
export function progressLine(e: RuntimeEvent): string | undefined {
  if (e.type === 'notice' && e.level !== 'info') return `${e.level === 'error' ? 'Error' : 'Warning'}: ${clip(e.message, 200)}`;
  if (e.type !== 'tool_start') return undefined;
  const input = (e.input ?? {}) as Record<string, unknown>;
  switch (e.tool) {
    case 'bash': return `${e.agent} is running ${code(str(input.command))}`;
    case 'read_file': return `${e.agent} is reading ${code(str(input.path))}`;
    case 'write_file': case 'edit_file': return `${e.agent} is editing ${code(str(input.path))}`;
    case 'spawn_teammate': return `${e.agent} is spawning ${str(input.name)}${input.role ? ` (${clip(str(input.role), 40)})` : ''}`;
    case 'send_message': return `${e.agent} is messaging ${input.msg_type === 'broadcast' ? 'the team' : str(input.to)}`;
    case 'task_create': return `${e.agent} is creating the task ${code(str(input.subject))}`;
    case 'claim_task': return `${e.agent} is claiming task #${String(input.task_id)}`;
    case 'idle': case 'read_inbox': case 'task_list': case 'task_get': case 'list_teammates': return undefined;
    default: return `${e.agent} is using ${e.tool}`;
  }
}

const cell = (s: string): string => s.replace(/[|\r\n]+/g, ' ');

/** /status: the roster (status, model, spend), the board's counts, and what waits for an answer. */
export function statusMarkdown(
  config: TeamConfig, tasks: Task[], pending: RequestRecord[], activity: (agent: string) => Activity, teamModel: string,
): string {
  const row = (name: string, role: string, status: string, m: Member | undefined, lead: boolean) => {
    const model = m?.model ?? teamModel;
    const spend = spendWords(lead ? leadUsage(config) : m?.usage, model) ?? '—';
    const doing = activityWords(activity(name));
    return `| ${cell(name)} | ${cell(role)} | ${cell(doing ? `${status} (${doing})` : status)} | ${cell(modelWords(model))} | ${cell(spend)} |`;
  };
  const lines = [
    `**Team "${cell(config.team_name)}"**`, '',
    '| name | role | status | model | spend |', '|---|---|---|---|---|',
    row('lead', 'lead', activity('lead').kind === 'idle' ? 'idle' : 'working', undefined, true),
    ...config.members.map((m) => row(m.name, m.role, m.status, m, false)),
  ];
  const count = (s: Task['status']) => tasks.filter((t) => t.status === s).length;
  lines.push('', `**Tasks:** ${count('pending')} pending, ${count('in_progress')} in progress, ${count('completed')} completed.`);
  lines.push('', pending.length ? `**Waiting for an answer:** ${pending.map((r) => `${r.kind} request ${r.request_id} from ${r.from} to ${r.to}`).join('; ')}` : 'Nothing waits for an answer.');
  return lines.join('\n');
}

/** /tasks: the board, blocked and owned tasks visible. */
export function tasksMarkdown(tasks: Task[]): string {
  if (!tasks.length) return 'The task board is empty.';
  const box: Record<Task['status'], string> = { pending: '☐', in_progress: '▶', completed: '☑' };
  return [...tasks].sort((a, b) => a.id - b.id).map((t) => {
    const bits = [`${box[t.status]} **#${t.id}** ${cell(clip(t.subject, 120))}`];
    if (t.owner) bits.push(`@${t.owner}`);
    if (t.blockedBy.length) bits.push(`(blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')})`);
    return `- ${bits.join(' ')}`;
  }).join('\n');
}

export const SPAWN_USAGE = 'Usage: /spawn <name> <role>: <first instructions> [--model <id>], e.g. /spawn alice backend engineer: write the parser';

/** `/spawn alice backend engineer: write the parser --model openai:gpt-4.1`. */
export function parseSpawn(text: string): { ok: true; input: SpawnInput } | { ok: false; error: string } {
  let rest = text.trim();
  let model: string | undefined;
  const m = /(?:^|\s)--model\s+(\S+)/.exec(rest);
  if (m) {
    model = m[1];
    rest = (rest.slice(0, m.index) + rest.slice(m.index + m[0].length)).trim();
  }
  const colon = rest.indexOf(':');
  const head = (colon < 0 ? rest : rest.slice(0, colon)).trim().split(/\s+/).filter(Boolean);
  const prompt = colon < 0 ? '' : rest.slice(colon + 1).trim();
  if (head.length < 2 || !prompt) return { ok: false, error: SPAWN_USAGE };
  const [name, ...role] = head as [string, ...string[]];
  return { ok: true, input: { name, role: role.join(' '), prompt, ...(model ? { model } : {}) } };
}
