// Subcommands that only read team state: `team`, `tasks`, `inbox`, `requests`. They never
// start a model and never create files.
import type { Member } from '../shared/schemas';
import { assertParticipantName, isPlanning, leadUsage, liveForeignHost, usageTotal } from '../core/session';
import { UsageError } from './args';
import type { CommandContext } from './context';
import { inboxText, requestLine, requestsText, rosterTable, taskBoard } from './format';

/** A participant name argument, or a usage error (a bad name is never a path). */
export function nameArg(raw: string | undefined, what: string, usage: string): string {
  if (raw === undefined) throw new UsageError(`missing ${what}`, usage);
  try {
    return assertParticipantName(raw);
  } catch (err) {
    throw new UsageError(`${what}: ${(err as Error).message}`, usage);
  }
}

function noExtraArgs(ctx: CommandContext, max: number): void {
  if (ctx.args.length > max) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[max])}`, ctx.usage);
}

/** Who runs a member, when a live lease says so (any host counts: we run nobody). */
function runBy(m: Member): string | null {
  return m.status === 'shutdown' ? null : liveForeignHost(m, '');
}

export async function teamCommand(ctx: CommandContext): Promise<number> {
  noExtraArgs(ctx, 0);
  const team = await ctx.view();
  const config = await team.roster();
  const pending = await team.requests({ status: 'pending' });
  const plans = await team.requests({ kind: 'plan' });
  const members = config.members.map((m) => ({
    ...m, tokens: usageTotal(m.usage), run_by: runBy(m),
    planning: isPlanning(m, plans),
  }));
  ctx.emit({ team_name: config.team_name, lead: { tokens: usageTotal(leadUsage(config)), model: config.lead?.model ?? null }, members, pending_requests: pending }, () => {
    const table = rosterTable(config, (m) => {
      const host = runBy(m);
      return host ? `${m.status} (host ${host})` : m.status;
    }, '-', plans, config.lead?.model ?? '-');
    return pending.length ? `${table}\nPending requests:\n${pending.map((r) => `  ${requestLine(r)}`).join('\n')}` : table;
  });
  return 0;
}

export async function tasksCommand(ctx: CommandContext): Promise<number> {
  noExtraArgs(ctx, 0);
  const tasks = await (await ctx.view()).tasks();
  ctx.emit(tasks, () => taskBoard(tasks));
  return 0;
}

export async function inboxCommand(ctx: CommandContext): Promise<number> {
  noExtraArgs(ctx, 1);
  const name = nameArg(ctx.args[0] ?? 'user', 'name', ctx.usage);
  const messages = await (await ctx.view()).inbox(name);
  ctx.emit(messages, () => inboxText(name, messages));
  return 0;
}

export async function requestsCommand(ctx: CommandContext): Promise<number> {
  noExtraArgs(ctx, 0);
  const team = await ctx.view();
  const records = ctx.opts.all === true ? await team.requests() : await team.requests({ status: 'pending' });
  ctx.emit(records, () => requestsText(records));
  return 0;
}
