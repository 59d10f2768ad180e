// `agent-teams queue [--json]`, `agent-teams queue add|cancel <name>` and the session's /queue
// (docs/file-formats.md, "Merge queue"): the queue actions of the session (core/session/actions,
// queue.ts) with this interface's words. An entry added here is worked by the host whose agents
// run (a VS Code window, an interactive session) — or by this process with --wait.
import type { MergeEntry } from '../shared/schemas/merge-queue';
import { ACTIONS, ActionError, entryWords, positions, shownEntries } from '../core/session';
import { stringOpt, UsageError } from './args';
import { actionCommand } from './action-command';
import type { CommandContext } from './context';
import { table } from './format';
import { replScope, slashAction } from './repl-action';
import { ReplUsageError, type SlashCommand } from './repl-host';

export function queueTable(entries: readonly MergeEntry[]): string {
  const shown = shownEntries(entries);
  if (!shown.length) return 'The merge queue is empty.';
  const pos = positions(entries);
  const rows = shown.map((e) => [e.teammate, e.branch, entryWords(e, pos.get(e.id)), e.test_command ?? '(merge only)']);
  const fails = shown.filter((e) => e.state === 'failed').map((e) => {
    const f = e.failure;
    const what = f ? `\n${e.teammate}: failed at ${f.step}${f.exit_code != null ? ` (exit ${f.exit_code})` : ''}, ${f.fault === 'branch' ? 'the branch' : 'the environment'} at fault: ${f.why}` : '';
    return `${what}${e.output_tail ? `\n${e.teammate}'s output (end):\n${e.output_tail}` : ''}`;
  });
  return table([['TEAMMATE', 'BRANCH', 'STATE', 'TEST'], ...rows]) + fails.join('');
}

function oneName(args: string[], usage: string, Err: new (m: string) => Error): string {
  if (args.length !== 1) throw new Err(args.length ? `expected one teammate name; ${usage}` : `missing teammate name; ${usage}`);
  return args[0]!;
}

const json = { json: { type: 'boolean' } } as const;

export const queueCommand = actionCommand(ACTIONS.queueList, {
  words: ['queue'], synopsis: '[--json]', options: json,
  args(ctx) {
    if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
    return {};
  },
  text: (entries) => queueTable(entries),
});

/** --wait: this process works the queue until the entry settles (alongside any other host: one entry at a time). */
async function waitFor(ctx: CommandContext, entry: MergeEntry): Promise<number> {
  const done = await ctx.session.mergeUntilSettled(entry.id);
  ctx.emit(done, () => `${entry.teammate}: ${entryWords(done)}${done.output_tail ? `\n${done.output_tail}` : ''}`);
  return done.state === 'merged' ? 0 : 1;
}

export const queueAddCommand = actionCommand(ACTIONS.queueAdd, {
  words: ['queue', 'add'], synopsis: '<name> [--merge-test <command>] [--wait] [--json]',
  summary: 'queue wt/<name>: merged in a scratch checkout, tested, landed only if the test passes (--wait: work it here, exit 1 unless merged)',
  options: { ...json, 'merge-test': { type: 'string' }, wait: { type: 'boolean' } },
  args: (ctx) => ({ teammate: oneName(ctx.args, ctx.usage, UsageError), test_command: stringOpt(ctx.opts, 'merge-test') }),
  json: (r) => r.entry,
  text: (r, a) => `${ACTIONS.queueAdd.describe(r, a)} It is merged by the session whose agents run here (VS Code or agent-teams), or pass --wait.`,
  then: (ctx, r) => (ctx.opts.wait === true ? waitFor(ctx, r.entry) : Promise.resolve(undefined)),
});

export const queueCancelCommand = actionCommand(ACTIONS.queueCancel, {
  words: ['queue', 'cancel'], synopsis: '<name> [--json]', summary: "cancel a teammate's queued merge", options: json,
  args: (ctx) => ({ teammate: oneName(ctx.args, ctx.usage, UsageError) }),
});

export const queueApproveCommand = actionCommand(ACTIONS.queueApprove, {
  words: ['queue', 'approve'], synopsis: '<name> [--yes] [--json]',
  summary: 'show the diff of the control files a held merge changes; with --yes, approve exactly those changes and queue it again',
  options: { ...json, yes: { type: 'boolean' } },
  args: (ctx) => ({ teammate: oneName(ctx.args, ctx.usage, UsageError), yes: ctx.opts.yes === true }),
});

/** `/queue` alone lists; `/queue add|cancel|retry|approve <name>` are the actions. */
const usage = '/queue [add|cancel|retry|approve <name>]';
const nameArg = (words: string[]) => ({ teammate: oneName(words, usage, ReplUsageError) });
const refusal = (err: unknown) => (err instanceof ActionError ? new ReplUsageError(err.message) : err);
const VERBS: Record<string, SlashCommand> = {
  add: slashAction(ACTIONS.queueAdd, { usage, args: nameArg, failure: refusal }),
  cancel: slashAction(ACTIONS.queueCancel, { usage, args: nameArg, failure: refusal }),
  retry: slashAction(ACTIONS.queueRetry, { usage, args: nameArg, failure: refusal }),
  approve: slashAction(ACTIONS.queueApprove, { usage, args: nameArg, failure: refusal }),
};

export const QUEUE_SLASH_COMMAND: SlashCommand = {
  usage,
  summary: 'the merge queue: worktree branches merged one at a time, landing only when the test command passes; add, cancel or retry one',
  async run(args, host) {
    const [verb, ...rest] = args;
    if (!verb) return host.print(queueTable(await ACTIONS.queueList.run(replScope(host.rt), {})));
    const cmd = VERBS[verb];
    if (!cmd) throw new ReplUsageError(`usage: ${usage}`);
    return cmd.run(rest, host);
  },
};
