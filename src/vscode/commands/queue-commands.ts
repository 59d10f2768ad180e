// The merge queue in VS Code (docs/file-formats.md, "Merge queue"): Queue Merge on a worktree
// teammate (palette, Team-tree row), Retry Merge and Cancel Merge on its entry's row, and Open
// Merge Diff on a merged entry — VS Code's diff editor between the workspace branch before
// the merge and the merge commit, read from git through the `agent-teams-merge:` scheme.
// Queue, Retry and Cancel are the session's queue actions (core/session/actions/queue.ts), as
// `agent-teams queue add|cancel` and /queue are; this file adds their titles and questions.
import * as vscode from 'vscode';
import { z } from 'zod';
import { ACTIONS, entryWords, fileAtCommit } from '../../core/session';
import { ParticipantName } from '../../shared/schemas';
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { CommandContext } from './command-context';
import { actionSpec } from './spec-from-action';
import { spec, type CommandSpec } from './command-spec';
import type { TreeNode } from '../views/nodes';
import { CANCEL, type Asked } from './questions';

export const MERGE_SCHEME = 'agent-teams-merge';

const teammateOf = (n: TreeNode) => (n.nodeKind === 'mergeEntry' ? { teammate: n.entry.teammate }
  : n.nodeKind === 'member' && !n.lead && n.member?.branch ? { teammate: n.name } : undefined);

async function pick(title: string, names: string[]): Promise<Asked<string>> {
  if (!names.length) throw new Error(`${title}: there is nobody to choose.`);
  const picked = await vscode.window.showQuickPick(names, { title, ignoreFocusOut: true });
  return picked ?? CANCEL;
}

const latest = async (ctx: CommandContext): Promise<Map<string, MergeEntry>> => ctx.session.view.latestMerges();

/** `agent-teams-merge:/<file>?rev=<commit>`: the file as it is in that commit ('' where it does not exist). */
export function mergeDiffContent(root: string): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(MERGE_SCHEME, {
    async provideTextDocumentContent(uri) {
      const rev = new URLSearchParams(uri.query).get('rev') ?? '';
      if (!/^[0-9a-f]{40,64}(\^1)?$/.test(rev)) return '';
      return fileAtCommit(root, rev, uri.path.slice(1));
    },
  });
}

async function openMergeDiff(teammate: string, ctx: CommandContext): Promise<string | undefined> {
  const e = (await latest(ctx)).get(teammate);
  if (e?.state !== 'merged' || !e.commit || !e.files?.length) throw new Error(`${teammate} has no merged entry with changes to show`);
  const file = e.files.length === 1 ? e.files[0] : await vscode.window.showQuickPick(e.files, { title: `Merge of ${e.branch}: which file?` });
  if (!file) return undefined;
  const uri = (rev: string) => vscode.Uri.from({ scheme: MERGE_SCHEME, path: `/${file}`, query: `rev=${rev}` });
  await vscode.commands.executeCommand('vscode.diff', uri(`${e.commit}^1`), uri(e.commit), `${file} · merge of ${e.branch} into ${e.into ?? 'the workspace branch'}`, { preview: true });
  return file;
}

export const QUEUE_COMMANDS: CommandSpec[] = [
  actionSpec(ACTIONS.queueAdd, {
    id: 'agentTeams.queueMerge', title: 'Queue Merge', runsAgents: true, startsAgents: true,
    fields: [{
      key: 'teammate',
      ask: async (ctx) => pick('Queue Merge: whose branch?', (await ctx.session.view.worktrees()).map((w) => w.name)),
    }],
    fromNode: teammateOf,
    after(r, a) {
      void vscode.window.showInformationMessage(`Agent Teams: ${ACTIONS.queueAdd.describe(r, a)}`);
      return r.entry;
    },
  }),
  actionSpec(ACTIONS.queueRetry, {
    id: 'agentTeams.retryMerge', title: 'Retry Merge', runsAgents: true, startsAgents: true,
    fields: [{ key: 'teammate', ask: async (ctx) => pick('Retry Merge', [...(await latest(ctx)).values()].filter((e) => e.state === 'failed' || e.state === 'cancelled').map((e) => e.teammate)) }],
    fromNode: teammateOf,
    after: (r) => r.entry,
  }),
  actionSpec(ACTIONS.queueApprove, {
    // The user's yes to the control files a held entry changes: asked with their diff (docs/security.md).
    id: 'agentTeams.approveMerge', title: 'Approve Merge', runsAgents: true, startsAgents: true,
    fields: [{ key: 'teammate', ask: async (ctx) => pick('Approve Merge', [...(await latest(ctx)).values()].filter((e) => e.state === 'failed' && e.control?.length).map((e) => e.teammate)) }],
    fromNode: teammateOf,
    after: (r) => r?.entry,
  }),
  actionSpec(ACTIONS.queueCancel, {
    id: 'agentTeams.cancelMerge', title: 'Cancel Merge',
    fields: [{ key: 'teammate', ask: async (ctx) => pick('Cancel Merge', [...(await latest(ctx)).values()].filter((e) => e.state === 'queued' || e.state === 'testing').map((e) => e.teammate)) }],
    fromNode: teammateOf,
    after: (e) => ({ ...e, words: entryWords(e) }),
  }),
  spec({
    id: 'agentTeams.openMergeDiff', title: 'Open Merge Diff',
    fields: [],
    schema: z.object({ teammate: ParticipantName }),
    fromNode: teammateOf,
    run: (a, ctx) => openMergeDiff(a.teammate, ctx),
  }),
];
