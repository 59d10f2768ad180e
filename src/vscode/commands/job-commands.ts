// Background jobs in VS Code (docs/tools.md): "Kill Background Job" from a running job's row
// in the Team view (inline and context menu; without a row it offers a pick of the running
// jobs). The job's agent is told the user killed it.
import * as vscode from 'vscode';
import { ACTIONS } from '../../core/session';
import type { CommandContext } from './command-context';
import type { CommandSpec } from './command-spec';
import { actionSpec } from './spec-from-action';
import type { TreeNode } from '../views/nodes';
import { CANCEL, type Asked } from './questions';

export const KILL_JOB = 'agentTeams.killJob';

async function pickJob(ctx: CommandContext): Promise<Asked<{ owner: string; id: string }>> {
  const running = ctx.session.jobs().filter((j) => j.state === 'running');
  if (!running.length) throw new Error('No background job is running in this window.');
  const picked = await vscode.window.showQuickPick(
    running.map((j) => ({ label: `${j.owner}: ${j.id}`, description: j.command.split('\n')[0]!.slice(0, 80), value: { owner: j.owner, id: j.id } })),
    { title: 'Kill Background Job', ignoreFocusOut: true });
  return picked ? picked.value : CANCEL;
}

export const JOB_COMMANDS: CommandSpec[] = [actionSpec(ACTIONS.killJob, {
  id: KILL_JOB, title: 'Kill Background Job',
  fields: [{ key: 'job', ask: pickJob }],
  fromNode: (n: TreeNode) => (n.nodeKind === 'job' ? { job: { owner: n.job.owner, id: n.job.id } } : undefined),
  after: (info) => info.state,
})];
