// `agent-teams worktrees` and `agent-teams worktree diff|merge|keep|remove`: teammates' git
// worktrees reviewed and handed in from a script, never starting a model. Each is a user
// action of the session (core/session/actions/worktrees.ts); here are the words, flags and
// the advice that names them, shared with the REPL's /worktrees /diff /merge /keep /remove.
import { checkName, WorktreeError, WorktreeInUseError } from '../core/session';
import { CliError, stringOpt, UsageError } from './args';
import { ACTIONS, actionCommand } from './action-command';
import type { CommandContext } from './context';
import { writeLine } from './io';
import { diffStat, diffText, keptText, mergeText, reconcileWarnings, removedText, statText, worktreeTable } from './worktree-format';

const json = { json: { type: 'boolean' } } as const;

function nameArg(ctx: CommandContext): string {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one worktree name' : 'missing worktree name', ctx.usage);
  try {
    return checkName(ctx.args[0]);
  } catch (err) {
    throw new UsageError(`worktree name: ${(err as Error).message}`, ctx.usage);
  }
}

/**
 * This interface's words for a refusal: the engine's advice ("pass a commit message",
 * "remove with force") and the in-use hint name the options to type here. The engine's
 * messages end in "; <advice>".
 */
export function worktreeAdvice(advice: { dirty?: string; ignored?: string; inUse?: string }) {
  return (err: unknown): unknown => {
    const code = err instanceof WorktreeError ? err.code : undefined;
    const instead = code === 'dirty-worktree' || code === 'unmerged-commits' ? advice.dirty : code === 'ignored-files' ? advice.ignored ?? advice.dirty : undefined;
    if (instead !== undefined) return new CliError(`${(err as Error).message.replace(/;[^;]*$/, '')}; ${instead}`);
    if (err instanceof WorktreeInUseError && advice.inUse) return err.withHint(advice.inUse);
    return err;
  };
}

export const worktrees = actionCommand(ACTIONS.worktreeList, {
  words: ['worktrees'], synopsis: '[--json]', options: json,
  summary: "teammates' git worktrees: name, branch, base, status (merged into the current branch or not), path; offers removal of merged ones",
  args(ctx) {
    if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
    return {};
  },
  print(ctx, r) {
    reconcileWarnings(r.report).forEach((w) => writeLine(ctx.io.stderr, `agent-teams: warning: ${w}`));
    ctx.emit(r.list, () => worktreeTable(r.list, ctx.root));
  },
});

export const worktreeDiff = actionCommand(ACTIONS.worktreeDiff, {
  words: ['worktree', 'diff'], synopsis: '<name> [--stat] [--json]',
  summary: "what a worktree has that the current branch lacks (from their merge base), uncommitted changes included",
  options: { ...json, stat: { type: 'boolean' } },
  args: (ctx) => ({ name: nameArg(ctx) }),
  print(ctx, d) {
    const stat = ctx.opts.stat === true;
    if (ctx.json) ctx.outJson(stat ? { ...d, text: undefined, stat: diffStat(d) } : { ...d, stat: diffStat(d) });
    else if (stat) ctx.out(statText(d));
    else ctx.io.stdout.write(d.text || `${diffText(d)}\n`);
  },
});

export const worktreeMerge = actionCommand(ACTIONS.worktreeMerge, {
  words: ['worktree', 'merge'], synopsis: '<name> [--message <text>] [--json]',
  summary: 'merge wt/<name> into the current branch; a conflict is aborted, its files listed, exit 1',
  options: { ...json, message: { type: 'string', short: 'm' } },
  args: (ctx) => ({ name: nameArg(ctx), message: stringOpt(ctx.opts, 'message') }),
  failure: worktreeAdvice({ dirty: 'commit them first, or pass --message "<text>" to commit them with the merge' }),
  print(ctx, r, a) {
    if (ctx.json) ctx.outJson({ name: a.name, branch: r!.branch, ...r });
    else if (r!.status === 'conflict') writeLine(ctx.io.stderr, `agent-teams: ${mergeText(a.name, r!.branch, r!)}`);
    else ctx.out(mergeText(a.name, r!.branch, r!));
  },
  exit: (r) => (r?.status === 'conflict' ? 1 : 0),
});

export const worktreeKeep = actionCommand(ACTIONS.worktreeKeep, {
  words: ['worktree', 'keep'], synopsis: '<name> [--message <text>] [--force] [--json]',
  summary: 'remove the checkout, keep branch wt/<name>; refuses if it would delete git-ignored files unless --force',
  options: { ...json, message: { type: 'string', short: 'm' }, force: { type: 'boolean' } },
  args: (ctx) => ({ name: nameArg(ctx), message: stringOpt(ctx.opts, 'message'), force: ctx.opts.force === true }),
  failure: worktreeAdvice({ dirty: 'commit them first, or pass --message "<text>" to commit them', ignored: 'move what you need out of it, or pass --force to delete them' }),
  text: (kept) => keptText(kept!),
});

export const worktreeRemove = actionCommand(ACTIONS.worktreeRemove, {
  words: ['worktree', 'remove'], synopsis: '<name> [--force] [--json]',
  summary: 'remove checkout and branch; refuses uncommitted or unmerged work, or git-ignored files, unless --force',
  options: { ...json, force: { type: 'boolean' } },
  args: (ctx) => ({ name: nameArg(ctx), force: ctx.opts.force === true }),
  failure: worktreeAdvice({
    dirty: 'merge or keep it, or pass --force to discard them', ignored: 'move what you need out of it, or pass --force to delete them', inUse: ', or pass --force',
  }),
  json: (r) => r!.removed,
  text: (r) => removedText(r!.removed),
});
