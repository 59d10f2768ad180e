// Subcommands that change team state as the user: tasks, mail, plan decisions, shutdown
// requests. Each is one engine call, so a VS Code window or REPL over the same folder
// sees the change through its file watchers within milliseconds.
import { text } from 'node:stream/consumers';
import { CliError, intList, positiveInt, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { taskLine } from './format';
import { nameArg } from './read-commands';
import { assertTeammateName, describeFailed, type Team } from '../core/session';

/** The words after the fixed arguments as one text; `-` alone reads stdin. */
async function restText(ctx: CommandContext, from: number, what: string): Promise<string> {
  const words = ctx.args.slice(from);
  const body = words.length === 1 && words[0] === '-' ? (await text(ctx.io.stdin)).replace(/\n$/, '') : words.join(' ');
  if (!body.trim()) throw new UsageError(`missing ${what}`, ctx.usage);
  return body;
}

/**
 * The team, created on disk only once `check` has passed over what is already there: a
 * command that fails (unknown recipient, task or request) leaves no empty `.team/`, which a
 * VS Code window would otherwise take for a team.
 */
async function openChecked(ctx: CommandContext, check: (team: Team) => Promise<unknown>): Promise<Team> {
  await check(await ctx.open(false));
  return ctx.open(true);
}

export async function taskAddCommand(ctx: CommandContext): Promise<number> {
  const subject = ctx.args.join(' ').trim();
  if (!subject) throw new UsageError('missing subject', ctx.usage);
  const blockedRaw = stringOpt(ctx.opts, 'blocked-by');
  const blockedBy = blockedRaw === undefined ? [] : intList(blockedRaw, '--blocked-by', ctx.usage);
  const team = await ctx.open(true);
  const task = await team.tasks.create({ subject, description: stringOpt(ctx.opts, 'description'), blockedBy });
  ctx.emit(task, () => `Created ${taskLine(task)}`);
  return 0;
}

export async function taskDoneCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one task id' : 'missing task id', ctx.usage);
  const id = positiveInt(ctx.args[0]!, 'task id', ctx.usage);
  const team = await openChecked(ctx, async (t) => {
    if (!(await t.tasks.get(id))) throw new CliError(`task ${id} not found`);
  });
  const waiting = (await team.tasks.list()).filter((t) => t.blockedBy.includes(id)).map((t) => t.id);
  const task = await team.tasks.update(id, { status: 'completed' });
  const unblocked = (await Promise.all(waiting.map((w) => team.tasks.get(w)))).filter((t) => t && t.blockedBy.length === 0);
  ctx.emit({ task, unblocked: unblocked.map((t) => t!.id) }, () =>
    [`Completed ${taskLine(task)}`, ...unblocked.map((t) => `Unblocked ${taskLine(t!)}`)].join('\n'));
  return 0;
}

/** Drops blockers from a task: those named with --from, or all (a blocker deleted or moved aside as corrupt never completes). */
export async function taskUnblockCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one task id' : 'missing task id', ctx.usage);
  const id = positiveInt(ctx.args[0]!, 'task id', ctx.usage);
  const fromRaw = stringOpt(ctx.opts, 'from');
  const from = fromRaw === undefined ? undefined : intList(fromRaw, '--from', ctx.usage);
  const team = await openChecked(ctx, async (t) => {
    const task = await t.tasks.get(id);
    if (!task) throw new CliError(`task ${id} not found`);
    const absent = (from ?? []).filter((b) => !task.blockedBy.includes(b));
    if (absent.length) throw new CliError(`task ${id} is not blocked by ${absent.map((b) => `#${b}`).join(', ')}`);
  });
  const before = (await team.tasks.get(id))!;
  const task = await team.tasks.update(id, { removeBlockedBy: from ?? before.blockedBy });
  ctx.emit({ task }, () => `Unblocked ${taskLine(task)}`);
  return 0;
}

export async function sendCommand(ctx: CommandContext): Promise<number> {
  const to = nameArg(ctx.args[0], 'recipient', ctx.usage);
  const content = await restText(ctx, 1, 'message text');
  const team = await openChecked(ctx, (t) => t.mailbox.assertRecipient(to));
  const message = await team.mailbox.send({ from: 'user', to, type: 'message', content });
  ctx.emit(message, () => `Sent to ${to}.`);
  return 0;
}

export async function broadcastCommand(ctx: CommandContext): Promise<number> {
  const content = await restText(ctx, 0, 'message text');
  const team = await openChecked(ctx, async (t) => {
    if (!(await t.roster.list()).some((m) => m.status !== 'shutdown')) throw new CliError('Nobody to broadcast to: no teammate is running.');
  });
  const r = await team.mailbox.broadcastReport('user', content);
  const sent = r.sent;
  ctx.emit(r.failed.length ? r : sent, () => {
    const got = sent.length ? `Sent to ${sent.map((m) => m.to).join(', ')}.` : 'Nobody to broadcast to: no teammate is running.';
    return r.failed.length ? `${got}\nNot delivered to: ${describeFailed(r)}.` : got;
  });
  return sent.length && !r.failed.length ? 0 : 1;
}

async function decide(ctx: CommandContext, approve: boolean, feedback: string): Promise<number> {
  const requestId = ctx.args[0];
  if (!requestId) throw new UsageError('missing request id', ctx.usage);
  const team = await openChecked(ctx, async (t) => {
    if (!(await t.findRequest(requestId).catch(() => undefined))) throw new CliError(`unknown request_id ${JSON.stringify(requestId)}`);
  });
  const r = await team.decidePlan('user', requestId, approve, feedback);
  if (!r.ok) throw new CliError(r.error);
  ctx.emit(r.record, () => `${approve ? 'Approved' : 'Rejected'} ${r.record.from}'s plan (${r.record.request_id}).`);
  return 0;
}

export function approveCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError('feedback goes in --feedback "<text>"', ctx.usage);
  return decide(ctx, true, stringOpt(ctx.opts, 'feedback') ?? '');
}

export async function rejectCommand(ctx: CommandContext): Promise<number> {
  return decide(ctx, false, await restText(ctx, 1, 'feedback (say what to change)'));
}

export async function shutdownCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length !== 1) throw new UsageError('expected one teammate name', ctx.usage);
  const name = nameArg(ctx.args[0], 'teammate', ctx.usage);
  const team = await openChecked(ctx, (t) => t.mailbox.assertRecipient(assertTeammateName(name)));
  const record = await team.requestShutdown('user', name);
  ctx.emit(record, () => `Asked ${name} to shut down (${record.request_id}); its answer arrives in your inbox.`);
  return 0;
}
