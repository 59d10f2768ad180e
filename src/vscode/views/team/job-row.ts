// A background job (docs/tools.md) as a row under the agent this window runs it for: id and
// command, its state in words; contextValue `job.<state>` offers Kill Background Job.
import * as vscode from 'vscode';
import type { JobInfo } from '../../../core/session';
import type { JobNode } from '../nodes';
import type { ChildRows } from './row-kind';

export const jobRows: ChildRows<JobNode> = {
  kind: 'job',
  under: (m, _s, agents) => (agents.jobs?.(m.name) ?? []).map((job): JobNode => ({ nodeKind: 'job', job })),
  key: (n) => jobId(n.job),
  item: (n) => jobItem(n.job),
  brief: (n) => { const i = jobItem(n.job); return [i.id, i.description]; },
};

const jobId = (j: JobInfo): string => `job:${j.owner}:${j.id}`;

function jobItem(j: JobInfo): vscode.TreeItem {
  const command = j.command.split('\n')[0]!.slice(0, 80);
  const item = new vscode.TreeItem(`${j.id}: ${command}`, vscode.TreeItemCollapsibleState.None);
  const state = j.state === 'running' ? 'running' : j.state === 'killed' ? 'killed' : j.exitCode !== null ? `ended, exit code ${j.exitCode}` : `ended by signal ${j.signal}`;
  item.id = jobId(j);
  item.description = state;
  item.contextValue = `job.${j.state}`;
  item.iconPath = new vscode.ThemeIcon(j.state === 'running' ? 'sync~spin' : j.exitCode === 0 ? 'pass' : 'error');
  item.accessibilityInformation = { label: `background job ${j.id}, ${command}, ${state}`, role: 'treeitem' };
  item.tooltip = new vscode.MarkdownString().appendCodeblock(j.command, 'sh');
  return item;
}
