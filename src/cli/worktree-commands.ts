// `agent-teams worktrees` and `agent-teams worktree diff|merge|keep|remove`: teammates' git
// worktrees reviewed and handed in from a script, never starting a model. The checks shared
// with the session's slash commands live here too (`worktreeGuards`); whether a worktree is
// in use is the team session's rule.
import type { WorktreeInfo } from '../core/worktree/manager';
import { checkName } from '../core/worktree/context';
import { WorktreeError } from '../core/worktree/errors';
import type { GitEnvOptions } from '../core/worktree/git';
import { repoInfo } from '../core/worktree/repo';
import type { TeamSession } from '../core/session/team-session';
import { CliError, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { writeLine } from './io';
import { diffStat, diffText, keptText, mergeText, reconcileWarnings, removedText, statText, worktreeTable } from './worktree-format';

/** Checks shared by the subcommands and the session, over one team session. */
export function worktreeGuards(session: TeamSession, git: GitEnvOptions = {}) {
  const wm = session.worktrees;
  return {
    /** Fails with git's own diagnosis: not a repository, or git missing. */
    async repo(): Promise<void> {
      await repoInfo(wm.root, git);
    },
    /** The record for `name`, or an error naming the ones there are. */
    async known(name: string): Promise<WorktreeInfo> {
      await repoInfo(wm.root, git);
      const w = await wm.get(name);
      if (w) return w;
      const names = (await wm.list()).map((x) => x.name);
      throw new CliError(`unknown worktree "${name}"; ${names.length ? `there are: ${names.join(', ')}` : 'there are none in this workspace'}`);
    },
  };
}

function nameArg(ctx: CommandContext): string {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one worktree name' : 'missing worktree name', ctx.usage);
  try {
    return checkName(ctx.args[0]);
  } catch (err) {
    throw new UsageError(`worktree name: ${(err as Error).message}`, ctx.usage);
  }
}

function open(ctx: CommandContext) {
  const session = ctx.session;
  return { wm: session.worktrees, session, guards: worktreeGuards(session, { env: ctx.io.env }) };
}

export async function worktreesCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const { wm, guards } = open(ctx);
  await guards.repo();
  // Reconcile first so a checkout deleted by hand shows as missing, not active.
  const report = await wm.reconcile();
  reconcileWarnings(report).forEach((w) => writeLine(ctx.io.stderr, `agent-teams: warning: ${w}`));
  const list = await ctx.session.worktreeViews();
  ctx.emit(list, () => worktreeTable(list, ctx.root));
  return 0;
}

export async function worktreeDiffCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const { wm, guards } = open(ctx);
  await guards.known(name);
  const d = await wm.diff(name);
  const stat = ctx.opts.stat === true;
  if (ctx.json) ctx.outJson(stat ? { ...d, text: undefined, stat: diffStat(d) } : { ...d, stat: diffStat(d) });
  else if (stat) ctx.out(statText(d));
  else ctx.io.stdout.write(d.text || `${diffText(d)}\n`);
  return 0;
}

export async function worktreeMergeCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const { wm, guards } = open(ctx);
  const w = await guards.known(name);
  const r = await rethrowDirty(wm.merge(name, { commitMessage: stringOpt(ctx.opts, 'message') }), 'commit them first, or pass --message "<text>" to commit them with the merge');
  if (ctx.json) ctx.outJson({ name, branch: w.branch, ...r });
  else if (r.status === 'conflict') writeLine(ctx.io.stderr, `agent-teams: ${mergeText(name, w.branch, r)}`);
  else ctx.out(mergeText(name, w.branch, r));
  return r.status === 'conflict' ? 1 : 0;
}

export async function worktreeKeepCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const { wm, session, guards } = open(ctx);
  await guards.known(name);
  await session.assertWorktreeFree(name);
  const kept = await rethrowDirty(
    wm.keep(name, { commitMessage: stringOpt(ctx.opts, 'message'), force: ctx.opts.force === true }),
    'commit them first, or pass --message "<text>" to commit them', 'move what you need out of it, or pass --force to delete them');
  ctx.emit(kept, () => keptText(kept));
  return 0;
}

export async function worktreeRemoveCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const force = ctx.opts.force === true;
  const { wm, session, guards } = open(ctx);
  await guards.known(name);
  if (!force) await session.assertWorktreeFree(name, ', or pass --force');
  // Forced: a teammate still in the checkout is stopped first (retired, as nobody runs it here).
  else await session.vacateWorktree(name);
  const removed = await rethrowDirty(wm.remove(name, { force }), 'merge or keep it, or pass --force to discard them',
    'move what you need out of it, or pass --force to delete them');
  ctx.emit(removed, () => removedText(removed));
  return 0;
}

/**
 * Replaces the engine's advice ("pass a commit message", "remove with force") with the
 * option to type in this interface. The engine's messages end in "; <advice>".
 */
export async function rethrowDirty<T>(op: Promise<T>, advice: string, ignoredAdvice = advice): Promise<T> {
  try {
    return await op;
  } catch (err) {
    if (err instanceof WorktreeError && (err.code === 'dirty-worktree' || err.code === 'unmerged-commits')) {
      throw new CliError(`${err.message.replace(/;[^;]*$/, '')}; ${advice}`);
    }
    if (err instanceof WorktreeError && err.code === 'ignored-files') {
      throw new CliError(`${err.message.replace(/;[^;]*$/, '')}; ${ignoredAdvice}`);
    }
    throw err;
  }
}
