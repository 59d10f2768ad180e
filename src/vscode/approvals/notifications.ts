// Notifications: plan requests addressed to the user (Review Plan · Approve · Reject…, at most
// one per request; three short buttons, so a narrow toast shows each word whole), the outcome
// of shutdowns the user asked for, and runtime notices. The same request can be answered from
// the tree or the inbox; a late click on a stale notification says who answered instead of
// failing.
import * as vscode from 'vscode';
import type { RuntimeEvent } from '../../core/session';
import type { RequestRecord } from '../../shared/schemas';
import type { CommandContext } from '../commands/command-context';
import { errorText } from '../host/log';
import { askText, CANCEL } from '../commands/questions';
import { TAKE_OVER_LEAD } from '../commands/lead-commands';
import { docNamed } from '../commands/open-doc';
import type { TeamHost } from '../host/team-host';

export class RequestNotifier implements vscode.Disposable {
  private readonly notified = new Set<string>();
  /** Shutdowns the user asked for, by id, until their outcome is told. */
  private readonly watching = new Set<string>();
  private readonly sub: vscode.Disposable;
  /** Shutdown outcomes already told, by id. */
  private readonly told = new Set<string>();
  private readonly startedAt = Date.now() / 1000;

  constructor(private readonly host: TeamHost, private readonly ctx: CommandContext) {
    this.sub = host.onDidChange((kinds) => {
      if (kinds.has('requests')) void this.scan();
    });
  }

  async scan(): Promise<void> {
    const all = await this.host.view.requests().catch(() => [] as RequestRecord[]);
    for (const r of all) {
      if (r.kind === 'plan' && r.status === 'pending' && r.to === 'user' && !this.notified.has(r.request_id)) {
        this.notified.add(r.request_id);
        void this.askPlan(r);
      }
      if (r.kind === 'shutdown' && r.from === 'user') {
        // Outcomes of requests made before this window started are not news, unless it saw
        // them pending. One made since may be answered before any scan sees it pending.
        if (r.status === 'pending') this.watching.add(r.request_id);
        else if ((this.watching.delete(r.request_id) || r.created_at >= this.startedAt) && !this.told.has(r.request_id)) {
          this.told.add(r.request_id);
          this.tellShutdown(r);
        }
      }
    }
  }

  private async askPlan(r: RequestRecord): Promise<void> {
    const choice = await vscode.window.showInformationMessage(`${r.from} submitted a plan`, 'Review Plan', 'Approve', 'Reject…');
    try {
      if (choice === 'Approve') await this.decide(r, true, '');
      else if (choice === 'Reject…') {
        const feedback = await askText({ title: `Reject ${r.from}'s plan`, prompt: 'What should change?' });
        if (feedback !== CANCEL) await this.decide(r, false, feedback);
      } else if (choice === 'Review Plan') await this.ctx.watch.reviewPlan(r.request_id);
    } catch (err) {
      void vscode.window.showErrorMessage(`Agent Teams: ${errorText(err)}`);
    }
  }

  private async decide(r: RequestRecord, approve: boolean, feedback: string): Promise<void> {
    const now = await this.host.view.request(r.request_id);
    if (now && now.status !== 'pending') {
      void vscode.window.showInformationMessage(`${r.from}'s plan was already ${now.status}${now.responded_by ? ` by ${now.responded_by}` : ''}.`);
      return;
    }
    await this.ctx.decidePlan(r.request_id, approve, feedback);
  }

  private tellShutdown(r: RequestRecord): void {
    const who = r.subject ?? r.to;
    if (r.status === 'approved') void vscode.window.showInformationMessage(`${who} shut down${r.reason ? `: ${r.reason}` : '.'}`);
    else if (r.status === 'rejected') void vscode.window.showWarningMessage(`${who} declined to shut down${r.reason ? `: ${r.reason}` : '.'}`);
  }

  dispose(): void {
    this.sub.dispose();
  }
}

const TAKE_OVER = 'Take Over Lead';

/**
 * Runtime notices: warnings and errors (budget spent, API errors) as notifications. A notice
 * about the lead while another window runs it offers Take Over Lead (lead-commands.ts).
 */
export function showNotice(e: RuntimeEvent, log: vscode.LogOutputChannel, leadElsewhere: () => boolean = () => false): void {
  if (e.type !== 'notice') return;
  // Notices name their agent in the message already (the CLI prints them as they are).
  const text = e.message;
  if (e.level === 'info') {
    vscode.window.setStatusBarMessage(`Agent Teams: ${text}`, 5000);
    return;
  }
  const show = e.level === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
  // A failed MCP server is offered a restart right there (docs/mcp.md); "Show" opens the
  // transcript of the agent the notice is about, where it happened.
  const agent = e.agent;
  const takeOver = agent === 'lead' && leadElsewhere();
  // A document the notice names opens from the extension (commands/open-doc.ts), not from a path the user must find.
  const doc = docNamed(text);
  const read = doc && `Read docs/${doc}.md`;
  const actions = [...(e.mcpServer ? ['Restart'] : []), ...(takeOver ? [TAKE_OVER] : []), ...(agent ? ['Show'] : []), ...(read ? [read] : []), 'Show Log'];
  // A toast shows the first line: a long tail (an MCP server's stderr) would fill the corner
  // and hide the toasts after it, such as the next approval. The whole notice is in the log.
  const [first = '', ...more] = text.split('\n');
  const toast = more.some((l) => l.trim()) ? `${first} (More in Show Log.)` : first;
  void show(`Agent Teams: ${toast}`, ...actions).then((b) => {
    if (b === TAKE_OVER) void vscode.commands.executeCommand(TAKE_OVER_LEAD);
    else if (b === 'Restart') void vscode.commands.executeCommand('agentTeams.mcpRestart', { server: e.mcpServer });
    else if (b === 'Show' && agent) void vscode.commands.executeCommand('agentTeams.openTranscript', { agent });
    else if (b && b === read) void vscode.commands.executeCommand('agentTeams.openDoc', { doc });
    else if (b) log.show(true);
  });
}
