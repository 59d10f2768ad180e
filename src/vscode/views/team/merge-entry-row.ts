// A teammate's merge-queue entry as a row under it in the Team tree (docs/file-formats.md,
// "Merge queue"): its state in words, why it waits or failed, the test output's tail in the
// tooltip; contextValue `mergeEntry.<state>` gives it Retry, Cancel or Open Merge Diff, and
// `mergeEntry.failed.held` (held at the queue's gate) Approve Merge.
import * as vscode from 'vscode';
import { entryWords, preparedWords } from '../../../core/session';
import type { MergeEntryNode } from '../nodes';
import type { ChildRows } from './row-kind';

const ICONS: Record<string, [string, string?]> = {
  queued: ['clock'], testing: ['sync~spin', 'charts.yellow'], waiting: ['watch', 'charts.yellow'],
  merged: ['git-merge', 'charts.green'], failed: ['error', 'charts.red'], cancelled: ['circle-slash'],
};

export const mergeEntryRows: ChildRows<MergeEntryNode> = {
  kind: 'mergeEntry',
  under: (m, s) => (s.merges.has(m.name) ? [s.merges.get(m.name)!] : []),
  key: () => 'merge',
  item: mergeEntryItem,
  brief: (n) => [n.entry.id, n.entry.state, n.entry.waiting, n.position, n.entry.updated_at],
};

function mergeEntryItem(n: MergeEntryNode): vscode.TreeItem {
  const e = n.entry;
  const words = entryWords(e, n.position);
  const item = new vscode.TreeItem(`Merge queue: ${e.branch}`, vscode.TreeItemCollapsibleState.None);
  item.id = `merge:${e.teammate}`;
  item.description = words;
  item.contextValue = `mergeEntry.${e.state}${e.state === 'failed' && e.control?.length ? '.held' : ''}`;
  const [icon, color] = ICONS[e.state === 'testing' && e.waiting ? 'waiting' : e.state]!;
  item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
  item.accessibilityInformation = { label: `merge of ${e.branch}, ${words}`, role: 'treeitem' };
  const md = new vscode.MarkdownString();
  md.appendText(`${e.branch} → ${e.into ?? 'the workspace branch'}: ${words}\n\nTest: ${e.test_command ?? 'none (merge only)'}\n\n`);
  const prepared = preparedWords(e);
  if (prepared) md.appendText(`Checkout: ${prepared}\n\n`);
  if (e.failure) md.appendText(`Failed at ${e.failure.step}${e.failure.exit_code != null ? ` (exit ${e.failure.exit_code})` : ''}; at fault: ${e.failure.fault} — ${e.failure.why}\n\n`);
  if (e.files?.length) md.appendText(`${e.state === 'failed' ? 'Conflicting files' : 'Files'}: ${e.files.join(', ')}\n\n`);
  if (e.output_tail) md.appendCodeblock(e.output_tail, 'text');
  item.tooltip = md;
  if (e.state === 'merged' && e.commit && e.files?.length) {
    item.command = { command: 'agentTeams.openMergeDiff', title: 'Open Merge Diff', arguments: [{ teammate: e.teammate }] };
  }
  return item;
}
