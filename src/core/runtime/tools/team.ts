// Team tools: spawning and listing teammates, and mail between agents. The rules (who may
// be messaged, who a broadcast reaches) live in core/team; these only translate.
import { z } from 'zod';
import { describeFailed } from '../../team/mailbox';
import { formatMail } from '../prompts';
import { defineTool, fail, ok, type AgentHandle, type ToolHost, type ToolResult } from './definition';

export const teammateName = z.string().describe('A teammate name: lowercase letters, digits, "-" or "_", starting with a letter.');

export const spawnTeammate = defineTool({
  name: 'spawn_teammate',
  description: 'Start a persistent teammate (or restart an idle/shut-down one) with a role and a first instruction.',
  input: z.object({
    name: teammateName,
    role: z.string().min(1).describe('What this teammate is for, e.g. "backend engineer".'),
    prompt: z.string().min(1).describe('The first instruction the teammate works on.'),
    isolation: z.enum(['none', 'worktree']).nullish().describe('"worktree": the teammate edits its own git worktree (branch wt/<name>) so parallel edits never collide.'),
    agent_type: z.string().nullish().describe('Start it from this agent definition (listed in your instructions): its model, tools and role instructions apply.'),
    model: z.string().nullish().describe('Its own model: a Claude model id, or opus, sonnet, haiku; default: the team\'s (or its definition\'s).'),
    plan_mode_required: z.boolean().nullish().describe('true: it may not change files or run commands until a plan it submits for its current task is approved. Default: the setting agentTeams.requirePlan.'),
  }),
  agents: ['lead'],
  async run({ name, role, prompt, isolation, agent_type, model, plan_mode_required }, a, h) {
    const m = await h.spawnTeammate({ name, role, prompt, isolation: isolation ?? 'none', agent_type, model, plan_mode_required }, a.name);
    const where = m.branch ? ` in its worktree on branch ${m.branch}` : '';
    const how = [m.agent_type ? `from ${m.agent_type}` : '', m.model ? `model ${m.model}` : '', m.plan_mode ? 'in plan mode: it plans first and changes nothing until its plan is approved' : '']
      .filter(Boolean).join('; ');
    return ok(`Spawned ${m.name} (${m.role})${where}${how ? `, ${how}` : ''}; it is working on your prompt.`);
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

export const sendMessage = defineTool({
  name: 'send_message',
  description: 'Send a message to a teammate, the lead or the user.',
  input: z.object({
    to: z.string().describe('Recipient: a teammate name, "lead" or "user".'),
    content: z.string().min(1).describe('The message text.'),
    msg_type: z.enum(['message', 'broadcast']).nullish().describe('"message" (default). Protocol messages have their own tools.'),
  }),
  agents: ['lead', 'teammate'],
  async run({ to, content, msg_type }, a, h) {
    if (msg_type === 'broadcast') return broadcastFrom(content, a, h);
    if (to === a.name) return fail('You cannot message yourself.');
    const m = await h.team.mailbox.send({ from: a.name, to, type: 'message', content });
    return ok(`Sent to ${m.to}.`);
  },
});

export const readInbox = defineTool({
  name: 'read_inbox',
  description: 'Read new messages now (they are also delivered to you automatically between tool calls).',
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
  description: 'Send a message to every teammate except you.',
  input: z.object({ content: z.string().min(1).describe('Sent to every teammate except you.') }),
  agents: ['lead'],
  run: ({ content }, a, h) => broadcastFrom(content, a, h),
});

export const teamTools = [spawnTeammate, listTeammates, sendMessage, readInbox, broadcast];
