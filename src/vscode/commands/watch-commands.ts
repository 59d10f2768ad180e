// Commands of the watching surface: Open Transcript and Show Changes (in the palette, each
// with its argument object), and the Changes view's own actions (open a change's diff,
// Revert Change, the branch diff of a worktree teammate), which take a view element or {id}.
import * as vscode from 'vscode';
import { z } from 'zod';
import { ParticipantName } from '../../shared/schemas';
import type { ChangeNode, ChangesProvider } from '../views/changes-view';
import { spanOf } from '../views/change-sides';
import type { CommandSpec } from './command-spec';
import type { CommandContext } from './command-context';
import type { CommandHandler } from '../activation/engine-api';
import { errorText } from '../host/log';
import type { TreeNode } from '../views/nodes';
import { pickParticipant } from './questions';

/** The agent of a Team row, a request row, or a Changes view agent row. */
function agentOf(n: TreeNode | ChangeNode): { agent: string } | undefined {
  if (n.nodeKind === 'member') return { agent: n.name };
  if (n.nodeKind === 'request') return { agent: n.record.from };
  if (n.nodeKind === 'changeAgent') return { agent: n.agent };
  return undefined;
}

export const WATCH_COMMANDS: CommandSpec[] = [
  {
    id: 'agentTeams.openTranscript', title: 'Open Transcript',
    fields: [{ key: 'agent', ask: async (ctx) => pickParticipant(await ctx.team(), 'Open Transcript', { lead: true, which: () => true }) }],
    schema: z.object({ agent: ParticipantName }), fromNode: (n) => agentOf(n),
    run: (async (a: { agent: string }, ctx: CommandContext) => ctx.watch.openTranscript(a.agent)) as CommandSpec['run'],
  },
  {
    id: 'agentTeams.showChanges', title: 'Show Changes', fields: [],
    schema: z.object({ agent: ParticipantName.optional() }), fromNode: (n) => agentOf(n),
    run: ((a: { agent?: string }, ctx: CommandContext) => ctx.watch.showChanges(a.agent)) as CommandSpec['run'],
  },
];

type Change = NonNullable<Awaited<ReturnType<ChangesProvider['find']>>>;

/** The Changes view's commands, and the content provider its diffs read. */
export function changeCommands(changes: ChangesProvider, log: vscode.LogOutputChannel): { content: vscode.Disposable; handlers: [string, CommandHandler][] } {
  /** `spans`: the command takes a file row or {id, through} too (Open Change); else one change only. */
  const withChange = (title: string, act: (c: Change, last: Change) => Promise<unknown>, spans = false) => async (arg: unknown) => {
    try {
      const span = spanOf(arg);
      // Revert takes one change: a file row or a span is not one.
      const one = !!span && !span.through && (arg as { nodeKind?: unknown }).nodeKind !== 'changeFile';
      const id = span && (spans || one) ? span.id : undefined;
      const c = id ? await changes.find(id) : undefined;
      if (!c) throw new Error(id ? `no change ${id}` : 'expects a change from the Changes view, or {id}');
      const last = spans && span?.through ? await changes.find(span.through) : c;
      if (!last) throw new Error(`no change ${span?.through}`);
      return await act(c, last);
    } catch (err) {
      log.error(`${title}: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`Agent Teams: ${title} failed: ${errorText(err)}`);
      return undefined;
    }
  };
  return {
    content: vscode.workspace.registerTextDocumentContentProvider('agent-teams-change', changes),
    handlers: [
      ['agentTeams.openChange', withChange('Open Change', (c, last) => changes.openDiff(c, last), true)],
      ['agentTeams.revertChange', withChange('Revert Change', (c) => changes.revert(c))],
      ['agentTeams.showBranchDiff', (n?: unknown) => {
        const node = n as ChangeNode | undefined;
        if (node?.nodeKind === 'changeAgent' && node.worktree) return vscode.commands.executeCommand('agentTeams.worktreeDiff', { name: node.worktree });
        return undefined;
      }],
    ],
  };
}
