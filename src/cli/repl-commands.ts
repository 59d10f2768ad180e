// The session's slash commands, as a table: each entry is its usage, a summary for /help
// and a handler. Handlers report failures by throwing; the session prints them.
import type { Member, RequestRecord } from '../shared/schemas';
import { ACTIONS, activityWords, hostLabel, type TeamSession } from '../core/session';
import { inboxText, jobsText, requestsText, rosterTable, taskBoard } from './format';
import { slashAction } from './repl-action';
import { ReplUsageError, type ReplHost, type SlashCommand } from './repl-host';
import { SPAWN_COMMAND, WORKTREE_COMMANDS } from './repl-worktree-commands';
import { MCP_SLASH_COMMAND } from './mcp-commands';
import { QUEUE_SLASH_COMMAND } from './queue-commands';
import { WATCH_SLASH_COMMANDS } from './watch-commands';

export { ReplUsageError, type ReplHost } from './repl-host';

/** The roster status, made finer by what this host knows (activity, remote lease). */
function memberStatus(rt: TeamSession, m: Member): string {
  if (m.status === 'shutdown') return 'shutdown';
  const a = rt.activity(m.name);
  if (a.kind === 'remote') return `remote: ${hostLabel(m) || `host ${a.host}`}`;
  const detail = activityWords(a);
  return detail ? `${m.status}, ${detail}` : m.status;
}

/** The request an /approve or /reject means: the id given, or the only pending plan. */
async function planRequest(args: string[], rt: TeamSession, usage: string): Promise<{ id: string; rest: string[] }> {
  if (args[0]?.startsWith('req_')) return { id: args[0], rest: args.slice(1) };
  const pending: RequestRecord[] = await rt.view.requests({ kind: 'plan', status: 'pending', to: 'user' });
  if (pending.length === 1) return { id: pending[0]!.request_id, rest: args };
  if (!pending.length) throw new ReplUsageError('No plan is waiting for your approval.');
  throw new ReplUsageError(`Several plans are pending; name one: ${usage}\n${requestsText(pending)}`);
}

function needName(args: string[], usage: string): string {
  if (args.length !== 1) throw new ReplUsageError(`usage: ${usage}`);
  return args[0]!;
}

export const SLASH_COMMANDS: Record<string, SlashCommand> = {
  team: {
    usage: '/team', summary: 'roster: status, role, current task, tokens; pending requests',
    async run(_a, { rt, print }) {
      const config = await rt.view.roster();
      const lead = activityWords(rt.activity('lead')) ?? 'idle';
      const pending = await rt.view.requests({ status: 'pending' });
      const plans = await rt.view.requests({ kind: 'plan' });
      print(rosterTable(config, (m) => memberStatus(rt, m), lead, plans, rt.settings().model) + (pending.length ? `\nPending requests:\n${requestsText(pending).replace(/^/gm, '  ')}` : ''));
    },
  },
  jobs: {
    usage: '/jobs', summary: "background commands by agent: running, or how they ended",
    async run(_a, { rt, print }) {
      print(jobsText(rt.jobs()));
    },
  },
  tasks: {
    usage: '/tasks', summary: 'the task board: [ ] pending, [>] in progress, [x] completed',
    async run(_a, { rt, print }) {
      print(taskBoard(await rt.view.tasks()));
    },
  },
  inbox: {
    usage: '/inbox [name]', summary: "everything sent to name (default: you); doesn't consume it",
    async run(args, { rt, print }) {
      const name = args[0] ?? 'user';
      print(inboxText(name, await rt.view.inbox(name)));
    },
  },
  requests: {
    usage: '/requests', summary: 'pending plan and shutdown requests',
    async run(_a, { rt, print }) {
      print(requestsText(await rt.view.requests({ status: 'pending' })));
    },
  },
  approve: slashAction(ACTIONS.approvePlan, {
    usage: '/approve <request_id> [feedback]', summary: "approve a teammate's plan (the id may be left out when one is pending)",
    async args(words, { rt }, usage) {
      const { id, rest } = await planRequest(words, rt, usage);
      return { requestId: id, feedback: rest.join(' ') };
    },
    text: (_r, a) => `Approved ${a.requestId}.`,
  }),
  reject: slashAction(ACTIONS.rejectPlan, {
    usage: '/reject <request_id> <feedback>',
    async args(words, { rt }, usage) {
      const { id, rest } = await planRequest(words, rt, usage);
      if (!rest.length) throw new ReplUsageError(`usage: ${usage} (the feedback tells the teammate what to change)`);
      return { requestId: id, feedback: rest.join(' ') };
    },
    text: (_r, a) => `Rejected ${a.requestId}.`,
  }),
  send: slashAction(ACTIONS.send, {
    usage: '/send <name> <text>', summary: 'message a teammate (or the lead) as you',
    args(words, _h, usage) {
      if (words.length < 2) throw new ReplUsageError(`usage: ${usage}`);
      return { to: words[0]!, content: words.slice(1).join(' ') };
    },
  }),
  broadcast: slashAction(ACTIONS.broadcast, {
    usage: '/broadcast <text>', summary: 'message every running teammate',
    args(words, _h, usage) {
      if (!words.length) throw new ReplUsageError(`usage: ${usage}`);
      return { content: words.join(' ') };
    },
  }),
  shutdown: slashAction(ACTIONS.shutdown, {
    usage: '/shutdown <name>', summary: 'ask a teammate to shut down (it finishes its tool call and answers)',
    args: (words, _h, usage) => ({ teammate: needName(words, usage) }),
    text: (r) => `Asked ${r.to} to shut down (${r.request_id}).`,
  }),
  spawn: SPAWN_COMMAND,
  stop: slashAction(ACTIONS.stop, {
    usage: '/stop <name>',
    args: (words, _h, usage) => ({ teammate: needName(words, usage) }),
  }),
  ...WORKTREE_COMMANDS,
  ...WATCH_SLASH_COMMANDS,
  mcp: MCP_SLASH_COMMAND,
  queue: QUEUE_SLASH_COMMAND,
  help: {
    usage: '/help', summary: 'this list',
    async run(_a, { print }) {
      print(helpText());
    },
  },
  quit: {
    usage: '/quit', summary: 'ask teammates to shut down, stop those that do not, and exit',
    async run(_a, host) {
      await host.quit();
    },
  },
};

const ALIASES: Record<string, string> = { exit: 'quit', q: 'quit', '?': 'help' };

export function helpText(): string {
  const entries = Object.values(SLASH_COMMANDS);
  const width = Math.max(...entries.map((c) => c.usage.length));
  return [
    'Type anything else to talk to the lead.',
    ...entries.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "Ctrl-C cancels the lead's turn (or a question); twice at an empty prompt quits.",
  ].join('\n');
}

/** Runs one `/command args…` line. */
export async function runSlash(line: string, host: ReplHost): Promise<void> {
  const [head = '', ...args] = line.trim().slice(1).split(/\s+/).filter(Boolean);
  const name = ALIASES[head] ?? head;
  const cmd = Object.hasOwn(SLASH_COMMANDS, name) ? SLASH_COMMANDS[name] : undefined;
  if (!cmd) throw new ReplUsageError(`Unknown command /${head}. /help lists them.`);
  await cmd.run(args, host);
}
