// The Inbox webview view (agentTeams.inbox): hosts the bundle from src/webview/, feeds it the
// team's messages (whole history once, then only what is new), participants and request
// states, and carries out what the user does there (send as user, decide plans) after
// validating every message it receives.
import * as vscode from 'vscode';
import { WebviewToHost, type HostToWebview, type RequestState } from '../../shared/webview-protocol';
import type { CommandContext } from '../commands/command-context';
import type { InboxFeed } from '../../core/session';
import { inboxHtml, nonce } from './inbox-html';
import { errorText } from '../host/log';
import { readSettings } from '../host/settings';
import type { TeamHost } from '../host/team-host';
import { mailFromView } from './view-requests';

export class InboxViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'agentTeams.inbox';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private pendingFocus: { name?: string } | undefined;
  private readonly feed: InboxFeed;
  private readonly subs: vscode.Disposable[] = [];
  private viewSubs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: TeamHost,
    private readonly ctx: () => CommandContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.feed = host.view.inboxFeed();
    this.subs.push(host.onDidChange((kinds) => {
      if (!this.ready) return;
      if (kinds.has('inbox')) void this.pushNew();
      if (kinds.has('requests')) void this.pushRequests();
      if (kinds.has('roster')) void this.pushParticipants();
    }));
    this.subs.push(vscode.workspace.onDidGrantWorkspaceTrust(() => this.post(this.initMessage())));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewSubs.forEach((d) => d.dispose());
    this.view = view;
    this.ready = false;
    const roots = [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media')];
    view.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: roots };
    view.webview.html = this.html(view.webview);
    this.viewSubs = [
      view.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      view.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
      }),
    ];
  }

  /** Opens the view and shows `name`'s threads. */
  async show(name?: string): Promise<void> {
    this.pendingFocus = { name };
    await vscode.commands.executeCommand(`${InboxViewProvider.viewId}.focus`);
    if (this.ready) this.flushFocus();
  }

  private flushFocus(): void {
    if (!this.pendingFocus) return;
    this.post({ type: 'focus', name: this.pendingFocus.name });
    this.pendingFocus = undefined;
  }

  private post(msg: HostToWebview): void {
    void this.view?.webview.postMessage(msg);
  }

  private initMessage(): HostToWebview {
    return { type: 'init', trusted: vscode.workspace.isTrusted, planApprover: readSettings().planApproval };
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = WebviewToHost.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`inbox webview sent an invalid message: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') return this.onReady();
    if (msg.type === 'openLink') {
      await vscode.env.openExternal(vscode.Uri.parse(msg.href, true));
      return;
    }
    try {
      const ctx = this.ctx();
      if (msg.type === 'send') {
        await mailFromView(ctx.scope, msg.to, msg.content);
        this.host.fire(['inbox']);
      } else {
        if (!msg.approve && !msg.feedback.trim()) throw new Error('Say what should change when rejecting a plan.');
        await ctx.decidePlan(msg.requestId, msg.approve, msg.feedback);
      }
      this.post({ type: 'result', ref: msg.ref, ok: true });
    } catch (err) {
      this.post({ type: 'result', ref: msg.ref, ok: false, error: errorText(err) });
    }
  }

  private async onReady(): Promise<void> {
    this.post(this.initMessage());
    await Promise.all([this.pushParticipants(), this.pushRequests()]);
    await this.feed.poll();
    this.post({ type: 'messages', reset: true, messages: [...this.feed.messages] });
    this.ready = true;
    this.flushFocus();
  }

  private async pushNew(): Promise<void> {
    const fresh = await this.feed.poll();
    if (fresh.length) this.post({ type: 'messages', reset: false, messages: fresh });
  }

  private async pushRequests(): Promise<void> {
    const records = await this.host.view.requests().catch(() => []);
    const requests: RequestState[] = records.map((r) => ({
      request_id: r.request_id, kind: r.kind, status: r.status, from: r.from, to: r.to,
      ...(r.responded_by ? { responded_by: r.responded_by } : {}),
    }));
    this.post({ type: 'requests', requests });
  }

  private async pushParticipants(): Promise<void> {
    const members = await this.host.view.members().catch(() => []);
    this.post({ type: 'participants', participants: members.map((m) => ({ name: m.name, role: m.role, status: m.status })) });
  }

  private html(webview: vscode.Webview): string {
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'inbox.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'inbox.css'));
    return inboxHtml({ nonce: nonce(), cspSource: webview.cspSource, script: script.toString(), style: style.toString() });
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.viewSubs.forEach((d) => d.dispose());
  }
}
