// Teammates' git worktrees, reviewed and handed in by the user: list, diff, merge, keep,
// remove. Whether a worktree is in use is the session's rule (core/worktree/in-use.ts); these add
// what every host checks first (a repository, a known name) and, in a host that can ask,
// the questions before committing or deleting work.
import { z } from 'zod';
import { repoInfo } from '../../worktree/repo';
import { branchStateWords } from '../../worktree/branch-state';
import { WorktreeError } from '../../worktree/errors';
import type { WorktreeInfo } from '../../worktree/manager';
import { ActionError, defineAction, type ActionScope } from './action';

export const WorktreeName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'is not a worktree name');

/** Fails with git's own diagnosis: not a repository, or git missing. */
async function repo(scope: ActionScope): Promise<void> {
  await repoInfo(scope.session.worktrees.root, scope.git ?? {});
}

/** The record for `name`, or an error naming the ones there are. */
export async function knownWorktree(scope: ActionScope, name: string): Promise<WorktreeInfo> {
  await repo(scope);
  const wm = scope.session.worktrees;
  const w = await wm.get(name);
  if (w) return w;
  const names = (await wm.list()).map((x) => x.name);
  throw new ActionError(`unknown worktree "${name}"; ${names.length ? `there are: ${names.join(', ')}` : 'there are none in this workspace'}`);
}

/**
 * The commit message for the checkout's uncommitted work: the one given; else, if `commit`
 * says so (or the user, asked), one of ours; null to go on without (the manager refuses
 * dirty work with its reason); undefined when the user said no.
 */
async function commitMessage(scope: ActionScope, name: string, what: string, a: { message?: string; commit?: boolean }): Promise<string | null | undefined> {
  if (a.message !== undefined) return a.message;
  if (a.commit === false || (a.commit === undefined && !scope.ask)) return null;
  const d = await scope.session.worktrees.diff(name);
  if (!d.uncommitted.length) return null;
  if (a.commit === undefined) {
    const yes = await scope.ask!({
      text: `${name}'s worktree has ${d.uncommitted.length} uncommitted file(s). Commit them to ${d.branch} and ${what}?`,
      detail: d.uncommitted.slice(0, 10).join('\n'), yes: `Commit and ${what[0]!.toUpperCase()}${what.slice(1)}`,
    });
    if (!yes) return undefined;
  }
  return `Work of ${name} (committed by the user to ${what})`;
}

/** Asks before going on by force after the manager refused with `err`; false = stop. */
async function forceAfter(scope: ActionScope, err: unknown, codes: string[], force: boolean | undefined, yes: string): Promise<boolean> {
  if (!(err instanceof WorktreeError && codes.includes(err.code)) || force !== undefined || !scope.ask) throw err;
  return scope.ask({ text: err.message, yes });
}

export const worktreeList = defineAction({
  id: 'worktreeList', summary: "teammates' git worktrees: name, branch, base, status (merged or not), path",
  args: z.object({}),
  async run(scope) {
    await repo(scope);
    // Reconcile first so a checkout deleted by hand shows as missing, not active.
    const report = await scope.session.worktrees.reconcile();
    // Each with where its branch stands, who uses it and whether its removal is offered (core/worktree/in-use.ts).
    return { report, list: await scope.session.worktreeViews() };
  },
  describe: (r) => r.list.map((w) => `${w.name} ${w.branch} ${w.status}, ${branchStateWords(w.state)}`).join('\n'),
});

export const worktreeDiff = defineAction({
  id: 'worktreeDiff', summary: "what a worktree has that the current branch lacks (from their merge base), uncommitted changes included",
  args: z.object({ name: WorktreeName }),
  async run(scope, a) {
    await knownWorktree(scope, a.name);
    return scope.session.worktrees.diff(a.name);
  },
  describe: (d) => `${d.branch}: ${d.files.length} file(s) not merged yet (since ${d.mergeBase.slice(0, 10)})`,
});

export const worktreeMerge = defineAction({
  id: 'worktreeMerge', summary: 'merge wt/<name> into the current branch; a conflict is aborted, its files listed',
  args: z.object({ name: WorktreeName, message: z.string().optional(), commit: z.boolean().optional() }),
  async run(scope, a) {
    const w = await knownWorktree(scope, a.name);
    const message = await commitMessage(scope, a.name, 'merge', a);
    if (message === undefined) return undefined;
    const r = await scope.session.worktrees.merge(a.name, { commitMessage: message ?? undefined });
    return { ...r, branch: w.branch };
  },
  describe: (r, a) => (!r ? 'Not merged.' : r.status === 'conflict' ? `Merging ${a.name} conflicts in ${r.files.join(', ')}.` : `${r.status}: ${r.branch} into ${r.into}.`),
});

export const worktreeKeep = defineAction({
  id: 'worktreeKeep', summary: 'remove the checkout, keep the work on branch wt/<name>',
  args: z.object({ name: WorktreeName, message: z.string().optional(), commit: z.boolean().optional(), force: z.boolean().optional() }),
  async run(scope, a) {
    await knownWorktree(scope, a.name);
    await scope.session.assertWorktreeFree(a.name);
    const message = await commitMessage(scope, a.name, 'keep', a);
    if (message === undefined) return undefined;
    const keep = (force?: boolean) => scope.session.worktrees.keep(a.name, { commitMessage: message ?? undefined, force });
    try {
      return await keep(a.force === true);
    } catch (err) {
      // Ignored files (.env, build output) go with the checkout: only if the user says so.
      return (await forceAfter(scope, err, ['ignored-files'], a.force, 'Keep Anyway')) ? keep(true) : undefined;
    }
  },
  describe: (w) => (w ? `Kept ${w.branch}; the checkout of ${w.name} is removed.` : 'Not kept.'),
});

const LOSES_WORK = ['dirty-worktree', 'unmerged-commits', 'ignored-files'];

export const worktreeRemove = defineAction({
  id: 'worktreeRemove', summary: 'remove checkout and branch; refuses uncommitted or unmerged work, or git-ignored files, unless forced',
  args: z.object({ name: WorktreeName, force: z.boolean().optional() }),
  async run(scope, a): Promise<{ removed: Awaited<ReturnType<typeof scope.session.worktrees.remove>>; stopped: string[] } | undefined> {
    await knownWorktree(scope, a.name);
    const { session } = scope;
    // Forced, the teammates in the checkout are stopped first, so no tool call of theirs runs
    // in a checkout being deleted (one another live host runs is refused: stop it there).
    const stopped = a.force === true ? await session.vacateWorktree(a.name) : (await session.assertWorktreeFree(a.name), []);
    try {
      return { removed: await session.worktrees.remove(a.name, { force: a.force === true }), stopped };
    } catch (err) {
      return (await forceAfter(scope, err, LOSES_WORK, a.force, 'Remove Anyway')) ? worktreeRemove.run(scope, { ...a, force: true }) : undefined;
    }
  },
  describe: (r) => (r ? `Removed worktree "${r.removed.name}" and branch ${r.removed.branch}.` : 'Not removed.'),
});
