// Review Plan (README.md, "Plans"): a teammate's plan as a readable Markdown document, read-only,
// under the scheme `agent-teams-plan` (one document per request: the query is its request id).
// The editor's title bar offers Approve Plan and Reject Plan for it (package.json menus,
// `resourceScheme == agent-teams-plan`); the approval notification offers Review Plan.
import * as vscode from 'vscode';
import type { RequestRecord } from '../../shared/schemas';

export const PLAN_SCHEME = 'agent-teams-plan';

const STATUS_WORDS: Record<RequestRecord['status'], string> = {
  pending: 'Waiting for your answer: **Approve Plan** or **Reject Plan** in this editor\'s title bar',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'No longer current (the teammate was restarted or moved on)',
};

/** The document's text. Pure: for the unit test. */
export function planMarkdown(r: Pick<RequestRecord, 'from' | 'status' | 'plan' | 'task' | 'feedback' | 'responded_by'>): string {
  const lines = [`# ${r.from}'s plan`, '', `*${STATUS_WORDS[r.status]}${r.responded_by && r.status !== 'pending' ? ` by ${r.responded_by}` : ''}.*`];
  if (typeof r.task === 'number') lines.push('', `For task #${r.task}.`);
  lines.push('', '---', '', (r.plan ?? '').trim() || '*(the plan is empty)*');
  if (r.feedback) lines.push('', '---', '', `**Feedback:** ${r.feedback}`);
  return `${lines.join('\n')}\n`;
}

export function planUri(r: Pick<RequestRecord, 'from' | 'request_id'>): vscode.Uri {
  return vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${r.from}'s plan.md`, query: r.request_id });
}

/** The request a plan document shows (its editor's title buttons pass the document's uri). */
export function planRequestOf(given: unknown): string | undefined {
  return given instanceof vscode.Uri && given.scheme === PLAN_SCHEME && given.query ? given.query : undefined;
}

export class PlanDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Set<string>();

  constructor(private readonly read: (requestId: string) => Promise<RequestRecord | undefined>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.add(uri.toString());
    const r = await this.read(uri.query);
    return r ? planMarkdown(r) : '# Plan not found\n\nThis plan request no longer exists.\n';
  }

  /** A request changed (answered elsewhere): shown documents say so. */
  refresh(): void {
    for (const u of this.open) this.changed.fire(vscode.Uri.parse(u));
  }

  /** Opens the plan of `r` beside nothing else: a Markdown editor, read-only. */
  async show(r: RequestRecord): Promise<vscode.TextEditor> {
    const doc = await vscode.workspace.openTextDocument(planUri(r));
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
