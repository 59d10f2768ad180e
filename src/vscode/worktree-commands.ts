// Worktree commands: show what an isolated teammate's branch has that is not merged yet, merge its branch into
// the current branch, keep the branch (checkout removed), remove it. Each takes `{name}` (and
// `commit` for merge/keep, `force` for remove: true/false decide, absent asks), or a teammate row of the Team tree, or asks with a quick pick. They run
// git, so like the agents they are refused in Restricted Mode.
import * as vscode from 'vscode';
import { z } from 'zod';
import { WorktreeError } from '../core/worktree/errors';
import type { WorktreeInfo, WorktreeManager } from '../core/worktree/manager';
import type { CommandContext } from './command-context';
import { spec, type CommandSpec } from './command-spec';
import type { TreeNode } from './nodes';
import { CANCEL, type Asked } from './prompts';

const WorktreeName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'is not a worktree name');

export interface WorktreeOutcome {
  name: string;
  status: string;
  files?: string[];
}

const nameOf = (n: TreeNode) => (n.nodeKind === 'member' && !n.lead && n.member?.branch ? { name: n.name } : undefined);

async function pickWorktree(wm: WorktreeManager, title: string, which: (w: WorktreeInfo) => boolean): Promise<Asked<string>> {
  const list = (await wm.list()).filter(which);
  if (list.length === 0) throw new Error('No worktree to choose from: spawn a teammate with isolation "worktree" first.');
  const picked = await vscode.window.showQuickPick(
    list.map((w) => ({ label: w.name, description: `${w.branch} · ${w.status}`, value: w.name })),
    { title, ignoreFocusOut: true, matchOnDescription: true });
  return picked ? picked.value : CANCEL;
}

const anyWorktree = () => true;
const withCheckout = (w: WorktreeInfo) => w.status === 'active';

function nameField(title: string, which: (w: WorktreeInfo) => boolean) {
  return { key: 'name', ask: (ctx: CommandContext) => pickWorktree(ctx.session.worktrees, title, which) };
}

async function showDiff(name: string, ctx: CommandContext): Promise<WorktreeOutcome> {
  const d = await ctx.session.worktrees.diff(name);
  const header = `# ${d.branch}: ${d.files.length} file${d.files.length === 1 ? '' : 's'} not merged yet (since ${d.mergeBase.slice(0, 10)})`
    + (d.uncommitted.length ? ` (${d.uncommitted.length} uncommitted)` : '');
  const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: `${header}\n${d.text || '# no changes\n'}` });
  await vscode.window.showTextDocument(doc, { preview: true });
  return { name, status: 'shown', files: d.files.map((f) => f.path) };
}

/**
 * Uncommitted work in the checkout: `commit` true commits it to the branch first, false
 * refuses (the core's error), undefined asks in a modal dialog. Undefined = the user cancelled.
 */
async function commitMessageFor(name: string, what: string, commit: boolean | undefined, ctx: CommandContext): Promise<string | null | undefined> {
  const d = await ctx.session.worktrees.diff(name);
  if (!d.uncommitted.length || commit === false) return null;
  if (commit === undefined) {
    const choice = await vscode.window.showWarningMessage(
      `${name}'s worktree has ${d.uncommitted.length} uncommitted file(s). Commit them to ${d.branch} and ${what}?`,
      { modal: true, detail: d.uncommitted.slice(0, 10).join('\n') }, `Commit and ${what[0]!.toUpperCase()}${what.slice(1)}`);
    if (!choice) return undefined;
  }
  return `Work of ${name} (committed by the user to ${what})`;
}

async function merge(name: string, commit: boolean | undefined, ctx: CommandContext): Promise<WorktreeOutcome | undefined> {
  const wm = ctx.session.worktrees;
  const message = await commitMessageFor(name, 'merge', commit, ctx);
  if (message === undefined) return undefined;
  const r = await wm.merge(name, { commitMessage: message ?? undefined });
  const branch = (await wm.get(name))?.branch ?? `wt/${name}`;
  if (r.status === 'conflict') {
    void vscode.window.showWarningMessage(
      `Agent Teams: merging ${name} into ${r.into} conflicts in ${r.files.join(', ')}. Nothing was merged; resolve on ${branch} and merge again.`);
    return { name, status: 'conflict', files: r.files };
  }
  const said = r.status === 'merged' ? `merged ${branch} into ${r.into} (${r.files.length} file(s))` : `${r.into} already has everything from ${branch}`;
  void vscode.window.showInformationMessage(`Agent Teams: ${said}.`);
  return { name, status: r.status, files: r.status === 'merged' ? r.files : [] };
}

/** Keep and remove take the checkout away: not from under a teammate using it (the session's rule). */
const IN_USE_HINT = ' (Request Shutdown, or Stop Teammate)';

async function keep(name: string, commit: boolean | undefined, ctx: CommandContext): Promise<WorktreeOutcome | undefined> {
  await ctx.session.assertWorktreeFree(name, IN_USE_HINT);
  const message = await commitMessageFor(name, 'keep', commit, ctx);
  if (message === undefined) return undefined;
  let info;
  try {
    info = await ctx.session.worktrees.keep(name, { commitMessage: message ?? undefined });
  } catch (err) {
    // Ignored files (.env, build output) go with the checkout: only if the user says so.
    if (!(err instanceof WorktreeError && err.code === 'ignored-files')) throw err;
    const choice = await vscode.window.showWarningMessage(err.message, { modal: true }, 'Keep Anyway');
    if (!choice) return undefined;
    info = await ctx.session.worktrees.keep(name, { commitMessage: message ?? undefined, force: true });
  }
  void vscode.window.showInformationMessage(`Agent Teams: kept ${info.branch}; the checkout of ${name} is removed.`);
  return { name, status: info.status };
}

/** `force` true discards, false refuses (the core's error), undefined asks when there is something to lose. */
async function remove(name: string, force: boolean | undefined, ctx: CommandContext): Promise<WorktreeOutcome | undefined> {
  // Forced, the teammates in the checkout are stopped first (refused if another window runs them).
  if (force === true) await ctx.session.vacateWorktree(name);
  else await ctx.session.assertWorktreeFree(name, IN_USE_HINT);
  const wm = ctx.session.worktrees;
  try {
    const r = await wm.remove(name, { force: force === true });
    void vscode.window.showInformationMessage(`Agent Teams: removed the worktree and branch ${r.branch}.`);
    return { name, status: 'removed', files: r.discardedFiles };
  } catch (err) {
    const dirty = err instanceof WorktreeError && ['dirty-worktree', 'unmerged-commits', 'ignored-files'].includes(err.code);
    if (!dirty || force !== undefined) throw err;
    const choice = await vscode.window.showWarningMessage(`${err.message}`, { modal: true }, 'Remove Anyway');
    return choice ? remove(name, true, ctx) : undefined;
  }
}

export const WORKTREE_COMMANDS: CommandSpec[] = [
  spec({
    id: 'agentTeams.worktreeDiff', title: 'Show Worktree Diff', runsAgents: true,
    fields: [nameField('Show Worktree Diff', anyWorktree)], schema: z.object({ name: WorktreeName }), fromNode: nameOf,
    run: (a, ctx) => showDiff(a.name, ctx),
  }),
  spec({
    id: 'agentTeams.worktreeMerge', title: 'Merge Worktree', runsAgents: true,
    fields: [nameField('Merge Worktree into the current branch', anyWorktree)], schema: z.object({ name: WorktreeName, commit: z.boolean().optional() }), fromNode: nameOf,
    run: (a, ctx) => merge(a.name, a.commit, ctx),
  }),
  spec({
    id: 'agentTeams.worktreeKeep', title: 'Keep Worktree Branch', runsAgents: true,
    fields: [nameField('Keep the branch, remove the checkout', withCheckout)], schema: z.object({ name: WorktreeName, commit: z.boolean().optional() }), fromNode: nameOf,
    run: (a, ctx) => keep(a.name, a.commit, ctx),
  }),
  spec({
    id: 'agentTeams.worktreeRemove', title: 'Remove Worktree', runsAgents: true,
    fields: [nameField('Remove Worktree (checkout and branch)', anyWorktree)],
    schema: z.object({ name: WorktreeName, force: z.boolean().optional() }), fromNode: nameOf,
    run: (a, ctx) => remove(a.name, a.force, ctx),
  }),
];
