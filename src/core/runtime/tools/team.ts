// Team tools: spawning and listing teammates, and mail between agents. The rules (who may
// be messaged, who a broadcast reaches) live in core/team; these only translate.
import { z } from 'zod';
import { describeFailed } from '../../team/mailbox';
import { knownModel, unknownModelWarning } from '../../roles/models';
import { formatMail } from '../prompts';
import { defineTool, fail, ok, type AgentHandle, type ToolHost, type ToolResult } from './definition';

export const teammateName = z.string().describe('A teammate name: lowercase letters, digits, "-" or "_", starting with a letter.');

export const spawnTeammate = defineTool({
  name: 'spawn_teammate',
  description: 'Start a persistent teammate (or restart an idle/shut-down one) with a role and a first instruction. '
    + 'It shares your workspace unless isolation is "worktree".',
  input: z.object({
    name: teammateName,
    role: z.string().min(1).describe('What this teammate is for, e.g. "backend engineer".'),
    prompt: z.string().min(1).describe('The first instruction the teammate works on.'),
    isolation: z.enum(['none', 'worktree']).nullish().describe('"none" (default): the shared workspace. '
      + '"worktree": its own git worktree on branch wt/<name>; you and the others see its work only once its commits on that branch are merged (through the merge queue: queue_merge). '
      + 'Use it when teammates would edit the same files in parallel, or for risky changes.'),
    agent_type: z.string().nullish().describe('An agent definition (listed in your instructions): its model, tools and instructions apply.'),
    model: z.string().nullish().describe('Its own model id (a Claude id, opus, sonnet, haiku; or openai:<id>, vscode:<vendor>/<family>); default: the team\'s (or its definition\'s).'),
    plan_mode_required: z.boolean().nullish().describe('true: no file changes or commands until a plan it submits is approved. Default: setting agentTeams.requirePlan.'),
    task: z.number().int().positive().nullish().describe('A task id it starts on: claimed for it before it starts (pending, unblocked, unowned or reserved for it).'),
  }),
  agents: ['lead'],
  async run({ name, role, prompt, isolation, agent_type, model, plan_mode_required, task }, a, h) {
    const m = await h.spawnTeammate({ name, role, prompt, isolation: isolation ?? 'none', agent_type, model, plan_mode_required, task }, a.name).catch(async (err: Error) => {
      // Tasks this reply reserved for it would wait forever for a teammate that never came.
      const freed = a.spawnsInReply.has(name) && !(await h.team.roster.get(name)) ? await h.team.tasks.unreserve(name) : [];
      if (freed.length) err.message += `. Task${freed.length > 1 ? 's' : ''} ${freed.map((t) => `#${t.id}`).join(', ')} reserved for ${name} went back to the board unowned`;
      throw err;
    });
    const where = m.branch ? ` in its worktree on branch ${m.branch}` : '';
    const how = [m.agent_type ? `from ${m.agent_type}` : '', m.model ? `model ${m.model}` : '', m.plan_mode ? 'in plan mode: it plans first and changes nothing until its plan is approved' : '']
      .filter(Boolean).join('; ');
    const odd = m.model && !knownModel(m.model) ? ` Note: ${unknownModelWarning(m.model)}.` : '';
    const current = (await h.team.roster.get(name))?.current_task;
    const on = current && (!task || current === task) ? `task #${current} (claimed for it${task ? '' : ', reserved for it on the board'}) and ` : '';
    const again = (m.incarnation ?? 1) > 1 ? ' It was here before and keeps its earlier conversation.' : '';
    return ok(`Spawned ${m.name} (${m.role})${where}${how ? `, ${how}` : ''}; it is working on ${on}your prompt.${again}${odd}`);
  },
});

export const listTeammates = defineTool({
  name: 'list_teammates',
  description: 'List teammates with status, role and current task.',
  input: z.object({}),
  agents: ['lead'],
  async run(_i, _a, h) {
    const members = await h.team.roster.list();
    if (!members.length) return ok('No teammates yet.');
    return ok(members.map((m) => `${m.name} (${m.role}): ${m.status}${m.current_task ? `, task #${m.current_task}` : ''}`).join('\n'));
  },
});

async function broadcastFrom(content: string, a: AgentHandle, h: ToolHost): Promise<ToolResult> {
  const r = await h.team.mailbox.broadcastReport(a.name, content);
  if (!r.sent.length && !r.failed.length) return ok('No teammates to broadcast to.');
  const got = r.sent.length ? `Broadcast to ${r.sent.map((m) => m.to).join(', ')}.` : 'Nobody got the broadcast.';
  // Who got it is said either way, so a retry goes only to those who did not.
  return r.failed.length ? { text: `${got} Not delivered to: ${describeFailed(r)}.`, isError: r.sent.length === 0 } : ok(got);
}

/** What the sender should expect of the recipient: an answer soon, or after its current work. */
async function recipientState(to: string, h: ToolHost): Promise<string> {
  if (to === 'lead') return h.leadBusy?.() ? ' (the lead is working: it reads this between its tool calls)' : ' (the lead was idle: woken now)';
  const m = await h.team.roster.get(to).catch(() => undefined);
  if (m?.status === 'idle') return ' (it was idle: woken now)';
  if (m?.status === 'working') return ' (it is working: it reads this between its tool calls)';
  return '';
}

export const sendMessage = defineTool({
  name: 'send_message',
  description: 'Send a message to a teammate, the lead or the user; the result says whether the recipient was idle (woken now) or working (reads it between its tool calls).',
  input: z.object({
    to: z.string().describe('Recipient: a teammate name, "lead" or "user".'),
    content: z.string().min(1).describe('The message text.'),
    msg_type: z.enum(['message', 'broadcast']).nullish().describe('"broadcast": to every teammate except you (`to` ignored).'),
  }),
  agents: ['lead', 'teammate'],
  async run({ to, content, msg_type }, a, h) {
    if (msg_type === 'broadcast') return broadcastFrom(content, a, h);
    if (to === a.name) return fail('You cannot message yourself.');
    const m = await h.team.mailbox.send({ from: a.name, to, type: 'message', content }).catch((err: Error) => err);
    if (m instanceof Error) {
      if (!/has shut down/.test(m.message)) throw m;
      return fail(`Not sent: ${to} has shut down and reads no mail (spawn_teammate starts it again).`);
    }
    return ok(`Sent to ${m.to}${await recipientState(m.to, h)}.`);
  },
});

export const readInbox = defineTool({
  name: 'read_inbox',
  description: 'Messages reach you by themselves: between your tool calls, and as a new turn when you are idle, so do not poll. '
    + 'Read by hand only to check for news before a step that depends on it, in the middle of a long series of tool calls.',
  input: z.object({}),
  agents: ['lead', 'teammate'],
  async run(_i, a, h) {
    const d = await h.team.mailbox.unread(a.name, a.inboxPosition());
    a.noteInboxRead(d.cursor);
    return ok(d.messages.length ? d.messages.map(formatMail).join('\n\n') : 'No new messages.');
  },
});

export const broadcast = defineTool({
  name: 'broadcast',
  description: 'Send a message to every teammate except you (shut-down ones excepted).',
  input: z.object({ content: z.string().min(1).describe('Sent to every teammate except you.') }),
  agents: ['lead'],
  run: ({ content }, a, h) => broadcastFrom(content, a, h),
});

export const teamTools = [spawnTeammate, listTeammates, sendMessage, readInbox, broadcast];
