// `agent-teams queue [--json]`, `agent-teams queue add|cancel <name>` and the session's /queue
// (docs/file-formats.md, "Merge queue"): the same queue operations the lead's queue_merge and
// VS Code's Queue Merge use, over the team session. An entry added here is worked by the host
// whose agents run (a VS Code window, an interactive session) — or by this process with --wait.
import type { MergeEntry } from '../shared/merge-queue-schema';
import { entryWords, MergeQueueError, positions, shownEntries, type TeamSession } from '../core/session';
import { CliError, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { table } from './format';
import { ReplUsageError, type SlashCommand } from './repl-host';

export function queueTable(entries: readonly MergeEntry[]): string {
  const shown = shownEntries(entries);
  if (!shown.length) return 'The merge queue is empty.';
  const pos = positions(entries);
  const rows = shown.map((e) => [e.teammate, e.branch, entryWords(e, pos.get(e.id)), e.test_command ?? '(merge only)']);
  const fails = shown.filter((e) => e.state === 'failed' && e.output_tail).map((e) => `\n${e.teammate}'s test output (end):\n${e.output_tail}`);
  return table([['TEAMMATE', 'BRANCH', 'STATE', 'TEST'], ...rows]) + fails.join('');
}

function oneName(args: string[], usage: string, Err: new (m: string) => Error): string {
  if (args.length !== 1) throw new Err(args.length ? `expected one teammate name; ${usage}` : `missing teammate name; ${usage}`);
  return args[0]!;
}

async function addText(rt: TeamSession, name: string, testCommand: string | undefined, by: string): Promise<{ entry: MergeEntry; text: string }> {
  const { entry, position } = await rt.mergeQueue.add(name, { by, testCommand });
  return { entry, text: `Queued ${entry.branch} of ${name} (${entry.test_command ? `test: ${entry.test_command}` : 'merge only'}), #${position} in line.` };
}

export async function queueCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const entries = await ctx.session.mergeQueue.list();
  ctx.emit(entries, () => queueTable(entries));
  return 0;
}

export async function queueAddCommand(ctx: CommandContext): Promise<number> {
  const name = oneName(ctx.args, ctx.usage, UsageError);
  await ctx.open(true);
  const rt = ctx.session;
  let added: { entry: MergeEntry; text: string };
  try {
    added = await addText(rt, name, stringOpt(ctx.opts, 'merge-test'), 'user');
  } catch (err) {
    if (err instanceof MergeQueueError) throw new CliError(err.message);
    throw err;
  }
  if (ctx.opts.wait !== true) {
    ctx.emit(added.entry, () => `${added.text} It is merged by the session whose agents run here (VS Code or agent-teams), or pass --wait.`);
    return 0;
  }
  // This process works the queue until the entry settles (alongside any other host: one entry at a time).
  rt.mergeQueue.start({ notify: () => undefined });
  let done: MergeEntry | undefined;
  while (!(done = (await rt.mergeQueue.list()).find((e) => e.id === added.entry.id && (e.state === 'merged' || e.state === 'failed' || e.state === 'cancelled')))) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await rt.mergeQueue.dispose();
  ctx.emit(done, () => `${name}: ${entryWords(done!)}${done!.output_tail ? `\n${done!.output_tail}` : ''}`);
  return done.state === 'merged' ? 0 : 1;
}

export async function queueCancelCommand(ctx: CommandContext): Promise<number> {
  const name = oneName(ctx.args, ctx.usage, UsageError);
  try {
    const e = await ctx.session.mergeQueue.cancel(name);
    ctx.emit(e, () => `Cancelled ${e.branch} of ${name}.`);
  } catch (err) {
    if (err instanceof MergeQueueError) throw new CliError(err.message);
    throw err;
  }
  return 0;
}

export const QUEUE_SLASH_COMMAND: SlashCommand = {
  usage: '/queue [add|cancel|retry <name>]',
  summary: 'the merge queue: worktree branches merged one at a time, landing only when the test command passes; add, cancel or retry one',
  async run(args, { rt, print }) {
    const [verb, ...rest] = args;
    const q = rt.mergeQueue;
    try {
      if (!verb) return print(queueTable(await q.list()));
      const name = oneName(rest, this.usage, ReplUsageError);
      if (verb === 'add') return print((await addText(rt, name, undefined, 'user')).text);
      if (verb === 'cancel') return print(`Cancelled ${(await q.cancel(name)).branch} of ${name}.`);
      if (verb === 'retry') return print(`Queued ${(await q.retry(name)).entry.branch} of ${name} again.`);
    } catch (err) {
      if (err instanceof MergeQueueError) throw new ReplUsageError(err.message);
      throw err;
    }
    throw new ReplUsageError(`usage: ${this.usage}`);
  },
};
