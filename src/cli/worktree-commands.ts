// `agent-teams worktrees` and `agent-teams worktree diff|merge|keep|remove`: teammates' git
// worktrees reviewed and handed in from a script, never starting a model. The checks and
// wording shared with the session's slash commands live here too (`worktreeGuards`).
import { WorktreeManager, type WorktreeInfo } from '../core/worktree/manager';
import { checkName } from '../core/worktree/context';
import { WorktreeError } from '../core/worktree/errors';
import type { GitEnvOptions } from '../core/worktree/git';
import { repoInfo } from '../core/worktree/repo';
import type { ReconcileReport } from '../core/worktree/reconcile';
import type { Team } from '../core/team/team';
import { CliError, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { hostLabel } from './format';
import { writeLine } from './io';
import { liveForeignHost } from '../core/runtime/lease';
import type { Member } from '../shared/team-schemas';
import { diffStat, diffText, keptText, mergeText, removedText, statText, worktreeTable } from './worktree-format';

/** What a reconcile found that the user should hear about (a vanished checkout, a corrupt index). */
export function reconcileWarnings(r: ReconcileReport): string[] {
  const out: string[] = [];
  if (r.corrupt) out.push(`the worktree index was unreadable (${r.corrupt.reason}); moved to ${r.corrupt.movedTo} and rebuilt from git`);
  if (r.missing.length) out.push(`checkout gone for ${r.missing.join(', ')}: marked missing (its branch is kept)`);
  if (r.adopted.length || r.adoptedKept.length) out.push(`adopted from git: ${[...r.adopted, ...r.adoptedKept].join(', ')}`);
  return out;
}

/** Checks shared by the subcommands and the session, over one manager and one team. */
export function worktreeGuards(wm: WorktreeManager, team: Team, git: GitEnvOptions = {}) {
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
    /**
     * Who still works in the checkout: a live teammate spawned into it, or one whose
     * in-progress task is bound to it. Taking the checkout from under them loses their work.
     */
    async users(name: string): Promise<string[]> {
      const dir = wm.pathOf(name);
      const [members, tasks] = await Promise.all([team.roster.list(), team.tasks.list()]);
      const live = members.filter((m) => m.status !== 'shutdown');
      const inside = live.filter((m) => m.worktree && (m.worktree === dir || m.worktree.startsWith(`${dir}/`))).map((m) => m.name);
      const bound = tasks.filter((t) => t.status === 'in_progress' && t.worktree === name && t.owner && live.some((m) => m.name === t.owner)).map((t) => t.owner!);
      return [...new Set([...inside, ...bound])];
    },
  };
}

/**
 * Forced removal with teammates still in the checkout: one a live window or session runs is
 * stopped there, not from under it (refused, naming the host); one nobody runs is marked
 * shut down and its tasks go back to pending, as a stop would.
 */
async function retireUsers(ctx: CommandContext, users: string[]): Promise<void> {
  const team = await ctx.open(false);
  const members = await Promise.all(users.map((u) => team.roster.get(u)));
  const running = members.filter((m): m is Member => !!m && !!liveForeignHost(m, ''));
  if (running.length) {
    throw new CliError(`${running.map((m) => `${m.name} is run by ${hostLabel(m)}`).join('; ')}: stop ${running.length === 1 ? 'it' : 'them'} there first, then remove`);
  }
  for (const u of users) await team.retireMember(u);
}

/** The refusal when teammates still work in the checkout. */
export function inUseError(name: string, users: string[], forceHint: string): CliError {
  return new CliError(`worktree "${name}" is in use by ${users.join(', ')}; shut ${users.length === 1 ? 'it' : 'them'} down first${forceHint}`);
}

function nameArg(ctx: CommandContext): string {
  if (ctx.args.length !== 1) throw new UsageError(ctx.args.length ? 'expected one worktree name' : 'missing worktree name', ctx.usage);
  try {
    return checkName(ctx.args[0]);
  } catch (err) {
    throw new UsageError(`worktree name: ${(err as Error).message}`, ctx.usage);
  }
}

async function open(ctx: CommandContext) {
  const env = ctx.io.env;
  const wm = new WorktreeManager(ctx.root, {
    env,
    onReport: (r) => reconcileWarnings(r).forEach((w) => writeLine(ctx.io.stderr, `agent-teams: warning: ${w}`)),
  });
  return { wm, guards: worktreeGuards(wm, await ctx.open(false), { env }) };
}

export async function worktreesCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const { wm, guards } = await open(ctx);
  await guards.repo();
  // Reconcile first so a checkout deleted by hand shows as missing, not active.
  const report = await wm.reconcile();
  reconcileWarnings(report).forEach((w) => writeLine(ctx.io.stderr, `agent-teams: warning: ${w}`));
  const list = await wm.list();
  ctx.emit(list, () => worktreeTable(list, ctx.root));
  return 0;
}

export async function worktreeDiffCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const { wm, guards } = await open(ctx);
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
  const { wm, guards } = await open(ctx);
  const w = await guards.known(name);
  const r = await rethrowDirty(wm.merge(name, { commitMessage: stringOpt(ctx.opts, 'message') }), 'commit them first, or pass --message "<text>" to commit them with the merge');
  if (ctx.json) ctx.outJson({ name, branch: w.branch, ...r });
  else if (r.status === 'conflict') writeLine(ctx.io.stderr, `agent-teams: ${mergeText(name, w.branch, r)}`);
  else ctx.out(mergeText(name, w.branch, r));
  return r.status === 'conflict' ? 1 : 0;
}

export async function worktreeKeepCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const { wm, guards } = await open(ctx);
  await guards.known(name);
  const users = await guards.users(name);
  if (users.length) throw inUseError(name, users, '');
  const kept = await rethrowDirty(
    wm.keep(name, { commitMessage: stringOpt(ctx.opts, 'message'), force: ctx.opts.force === true }),
    'commit them first, or pass --message "<text>" to commit them', 'move what you need out of it, or pass --force to delete them');
  ctx.emit(kept, () => keptText(kept));
  return 0;
}

export async function worktreeRemoveCommand(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const force = ctx.opts.force === true;
  const { wm, guards } = await open(ctx);
  await guards.known(name);
  const users = await guards.users(name);
  if (users.length && !force) throw inUseError(name, users, ', or pass --force');
  if (users.length) await retireUsers(ctx, users);
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
