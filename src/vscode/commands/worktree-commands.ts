// Worktree commands: show what an isolated teammate's branch has that is not merged yet, merge its branch into
// the current branch, keep the branch (checkout removed), remove it — the session's worktree
// actions (core/session/actions/worktrees.ts), which ask in modal dialogs here. Each takes
// `{name}` (and `commit` for merge/keep, `force` for remove: true/false decide, absent asks),
// or a teammate row of the Team tree, or asks with a quick pick. They run git, so like the
// agents they are refused in Restricted Mode.
import * as vscode from 'vscode';
import { ACTIONS, WorktreeInUseError, type TeamView, type WorktreeInfo } from '../../core/session';
import { actionSpec } from './spec-from-action';
import type { CommandContext } from './command-context';
import type { CommandSpec } from './command-spec';
import type { TreeNode } from '../views/nodes';
import { CANCEL, type Asked } from './questions';

export interface WorktreeOutcome {
  name: string;
  status: string;
  files?: string[];
}

const nameOf = (n: TreeNode) => (n.nodeKind === 'member' && !n.lead && n.member?.branch ? { name: n.name } : undefined);

async function pickWorktree(team: TeamView, title: string, which: (w: WorktreeInfo) => boolean): Promise<Asked<string>> {
  const list = (await team.worktrees()).filter(which);
  if (list.length === 0) throw new Error('No worktree to choose from: spawn a teammate with isolation "worktree" first.');
  const picked = await vscode.window.showQuickPick(
    list.map((w) => ({ label: w.name, description: `${w.branch} · ${w.status}`, value: w.name })),
    { title, ignoreFocusOut: true, matchOnDescription: true });
  return picked ? picked.value : CANCEL;
}

const anyWorktree = () => true;
const withCheckout = (w: WorktreeInfo) => w.status === 'active';

function nameField(title: string, which: (w: WorktreeInfo) => boolean) {
  return { key: 'name', ask: (ctx: CommandContext) => pickWorktree(ctx.session.view, title, which) };
}

/** Keep and remove take the checkout away: not from under a teammate using it (the session's rule). */
const IN_USE_HINT = ' (Request Shutdown, or Stop Teammate)';

/** The same refusal, naming what to do in this window. */
async function inUseHint<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    throw err instanceof WorktreeInUseError ? err.withHint(IN_USE_HINT) : err;
  }
}

const info = (text: string) => void vscode.window.showInformationMessage(`Agent Teams: ${text}`);

export const WORKTREE_COMMANDS: CommandSpec[] = [
  actionSpec(ACTIONS.worktreeDiff, {
    id: 'agentTeams.worktreeDiff', title: 'Show Worktree Diff', runsAgents: true,
    fields: [nameField('Show Worktree Diff', anyWorktree)], fromNode: nameOf,
    async after(d, a): Promise<WorktreeOutcome> {
      const header = `# ${d.branch}: ${d.files.length} file${d.files.length === 1 ? '' : 's'} not merged yet (since ${d.mergeBase.slice(0, 10)})`
        + (d.uncommitted.length ? ` (${d.uncommitted.length} uncommitted)` : '');
      const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: `${header}\n${d.text || '# no changes\n'}` });
      await vscode.window.showTextDocument(doc, { preview: true });
      return { name: a.name, status: 'shown', files: d.files.map((f) => f.path) };
    },
  }),
  actionSpec(ACTIONS.worktreeMerge, {
    id: 'agentTeams.worktreeMerge', title: 'Merge Worktree', runsAgents: true,
    fields: [nameField('Merge Worktree into the current branch', anyWorktree)], fromNode: nameOf,
    after(r, a): WorktreeOutcome | undefined {
      if (!r) return undefined;
      if (r.status === 'conflict') {
        void vscode.window.showWarningMessage(
          `Agent Teams: merging ${a.name} into ${r.into} conflicts in ${r.files.join(', ')}. Nothing was merged; resolve on ${r.branch} and merge again.`);
        return { name: a.name, status: 'conflict', files: r.files };
      }
      info(`${r.status === 'merged' ? `merged ${r.branch} into ${r.into} (${r.files.length} file(s))` : `${r.into} already has everything from ${r.branch}`}.`);
      return { name: a.name, status: r.status, files: r.status === 'merged' ? r.files : [] };
    },
  }),
  actionSpec(ACTIONS.worktreeKeep, {
    id: 'agentTeams.worktreeKeep', title: 'Keep Worktree Branch', runsAgents: true,
    fields: [nameField('Keep the branch, remove the checkout', withCheckout)], fromNode: nameOf,
    after(w, a): WorktreeOutcome | undefined {
      if (!w) return undefined;
      info(`kept ${w.branch}; the checkout of ${a.name} is removed.`);
      return { name: a.name, status: w.status };
    },
  }),
  actionSpec(ACTIONS.worktreeRemove, {
    id: 'agentTeams.worktreeRemove', title: 'Remove Worktree', runsAgents: true,
    fields: [nameField('Remove Worktree (checkout and branch)', anyWorktree)], fromNode: nameOf,
    after(r, a): WorktreeOutcome | undefined {
      if (!r) return undefined;
      info(`removed the worktree and branch ${r.removed.branch}.`);
      return { name: a.name, status: 'removed', files: r.removed.discardedFiles };
    },
  }),
].map((s) => ({ ...s, run: ((a: never, ctx: CommandContext) => inUseHint(s.run(a, ctx))) as CommandSpec['run'] }));
