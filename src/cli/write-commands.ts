// Subcommands that change team state as the user: tasks, mail, plan decisions, shutdown
// requests. Each is a user action of the session (core/session/actions) with this
// interface's words and flags, so a VS Code window or REPL over the same folder sees the
// change through its file watchers within milliseconds.
import { text } from 'node:stream/consumers';
import { normalizeGlobs } from '../core/session';
import { intList, positiveInt, stringOpt, UsageError } from './args';
import { ACTIONS, actionCommand } from './action-command';
import type { CommandContext } from './context';
import { taskLine } from './format';
import { nameArg } from './read-commands';

const json = { json: { type: 'boolean' } } as const;

/** The words after the fixed arguments as one text; `-` alone reads stdin. */
export async function restText(ctx: CommandContext, from: number, what: string): Promise<string> {
  const words = ctx.args.slice(from);
  const body = words.length === 1 && words[0] === '-' ? (await text(ctx.io.stdin)).replace(/\n$/, '') : words.join(' ');
  if (!body.trim()) throw new UsageError(`missing ${what}`, ctx.usage);
  return body;
}

/** --files <glob,…>: what the task may change (file ownership); checked before anything is written. */
function filesOpt(ctx: CommandContext): string[] | undefined {
  const raw = stringOpt(ctx.opts, 'files');
  if (raw === undefined) return undefined;
  try {
    return normalizeGlobs(raw.split(',').map((g) => g.trim()).filter(Boolean)) ?? [];
  } catch (err) {
    throw new UsageError(`--files: ${(err as Error).message.replace(/^files: /, '')}`, ctx.usage);
  }
}

function oneTaskId(ctx: CommandContext): number {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one task id' : 'missing task id', ctx.usage);
  return positiveInt(ctx.args[0]!, 'task id', ctx.usage);
}

function requestIdArg(ctx: CommandContext): string {
  const requestId = ctx.args[0];
  if (!requestId) throw new UsageError('missing request id', ctx.usage);
  return requestId;
}

export const taskAdd = actionCommand(ACTIONS.createTask, {
  words: ['task', 'add'], synopsis: '<subject> [--description <text>] [--blocked-by <id,id…>] [--files <glob,…>] [--json]',
  options: { ...json, description: { type: 'string' }, 'blocked-by': { type: 'string' }, files: { type: 'string' } },
  args(ctx) {
    const subject = ctx.args.join(' ').trim();
    if (!subject) throw new UsageError('missing subject', ctx.usage);
    const blockedRaw = stringOpt(ctx.opts, 'blocked-by');
    const blockedBy = blockedRaw === undefined ? [] : intList(blockedRaw, '--blocked-by', ctx.usage);
    return { subject, description: stringOpt(ctx.opts, 'description'), blockedBy, files: filesOpt(ctx) };
  },
  text: (task) => `Created ${taskLine(task)}`,
});

export const taskDone = actionCommand(ACTIONS.completeTask, {
  words: ['task', 'done'], synopsis: '<id> [--json]', options: json,
  args: (ctx) => ({ id: oneTaskId(ctx) }),
  json: (r) => ({ task: r.task, unblocked: r.unblocked.map((t) => t.id) }),
  text: (r) => [`Completed ${taskLine(r.task)}`, ...r.unblocked.map((t) => `Unblocked ${taskLine(t)}`)].join('\n'),
});

export const taskUnblock = actionCommand(ACTIONS.unblockTask, {
  words: ['task', 'unblock'], synopsis: '<id> [--from <id,id…>] [--json]', options: { ...json, from: { type: 'string' } },
  args(ctx) {
    const id = oneTaskId(ctx);
    const fromRaw = stringOpt(ctx.opts, 'from');
    return { id, from: fromRaw === undefined ? undefined : intList(fromRaw, '--from', ctx.usage) };
  },
  json: (task) => ({ task }),
  text: (task) => `Unblocked ${taskLine(task)}`,
});

export const send = actionCommand(ACTIONS.send, {
  words: ['send'], synopsis: '<to> <text…|-> [--json]', summary: 'send a message as user (- reads the text from stdin)', options: json,
  args: async (ctx) => ({ to: nameArg(ctx.args[0], 'recipient', ctx.usage), content: await restText(ctx, 1, 'message text') }),
});

export const broadcast = actionCommand(ACTIONS.broadcast, {
  words: ['broadcast'], synopsis: '<text…|-> [--json]', options: json,
  args: async (ctx) => ({ content: await restText(ctx, 0, 'message text') }),
  json: (r) => (r.failed.length ? r : r.sent),
  exit: (r) => (r.sent.length && !r.failed.length ? 0 : 1),
});

export const approve = actionCommand(ACTIONS.approvePlan, {
  words: ['approve'], synopsis: '<request_id> [--feedback <text>] [--json]', options: { ...json, feedback: { type: 'string' } },
  args(ctx) {
    if (ctx.args.length > 1) throw new UsageError('feedback goes in --feedback "<text>"', ctx.usage);
    return { requestId: requestIdArg(ctx), feedback: stringOpt(ctx.opts, 'feedback') ?? '' };
  },
});

export const reject = actionCommand(ACTIONS.rejectPlan, {
  words: ['reject'], synopsis: '<request_id> <feedback…> [--json]', options: json,
  args: async (ctx) => ({ requestId: requestIdArg(ctx), feedback: await restText(ctx, 1, 'feedback (say what to change)') }),
});

export const shutdown = actionCommand(ACTIONS.shutdown, {
  words: ['shutdown'], synopsis: '<name> [--json]', options: json,
  args(ctx) {
    if (ctx.args.length !== 1) throw new UsageError('expected one teammate name', ctx.usage);
    return { teammate: nameArg(ctx.args[0], 'teammate', ctx.usage) };
  },
});
