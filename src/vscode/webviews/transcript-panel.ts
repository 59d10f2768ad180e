// Transcript panels (command agentTeams.openTranscript): one editor-area webview per agent,
// fed from its transcript file (read from the end, then followed, so agents of other
// windows and the CLI show too) and, for agents this window runs, from live runtime events
// (streamed text, tool calls as they start and finish). Panels come back after a reload
// (WebviewPanelSerializer). Every message from a panel is validated before it acts.
import * as vscode from 'vscode';
import { type Activity, estimateCost, formatCost, isPlanning, type ItemChange, NAME_RE, PLANNING_WORDS, type RuntimeEvent, type TranscriptFollower, usageTotal } from '../../core/session';
import type { TranscriptItem, TranscriptMode } from '../../shared/transcript-items';
import { FIRST_ITEMS, OLDER_CHUNK, TranscriptToHost, type PanelStatus, type PendingAsk, type TranscriptToWebview } from '../../shared/transcript-protocol';
import type { BashAsks } from '../approvals/bash-asks';
import type { CommandContext } from '../commands/command-context';
import { nonce } from './inbox-html';
import { errorText } from '../host/log';
import type { TeamHost } from '../host/team-host';
import { transcriptHtml } from './transcript-html';
import { mailFromView, stopFromView } from './view-requests';

export const TRANSCRIPT_VIEW_TYPE = 'agentTeams.transcript';
/**
 * Lines other processes append are read when the session's change feed reports them (one
 * watch of the transcripts' folder for every panel); this poll (a stat when nothing changed)
 * is the fallback when it does not.
 */
const POLL_MS = 500;

function activityWords(a: Activity | undefined): string {
  switch (a?.kind) {
    case undefined: case 'idle': return 'idle';
    case 'requesting': case 'streaming': return 'thinking…';
    case 'tool': return `running ${a.tool}`;
    case 'retrying': return `retrying (${a.reason})`;
    case 'waiting-approval': return `waiting for ${a.what}`;
    case 'paused': return `paused: ${a.reason}`;
    case 'error': return `error: ${a.message}`;
    case 'stopped': return 'stopped';
    case 'remote': return 'run by another window';
  }
}

export function transcriptMode(): TranscriptMode {
  const v = vscode.workspace.getConfiguration('agentTeams').get<string>('transcript.view');
  return v === 'summary' || v === 'verbose' ? v : 'normal';
}

interface Deps {
  extensionUri: vscode.Uri;
  host: TeamHost;
  ctx: () => CommandContext;
  asks: BashAsks;
  log: vscode.LogOutputChannel;
}

class TranscriptPanel implements vscode.Disposable {
  private follower: TranscriptFollower;
  private readonly subs: vscode.Disposable[] = [];
  private queue: ItemChange[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private stopFollow: (() => void) | undefined;
  private ready = false;
  private loading: Map<string, TranscriptItem> | null = null;
  private disposed = false;
  /** Bumped by every (re)load, so a load's older chunks stop once another begins. */
  private generation = 0;

  constructor(readonly agent: string, readonly panel: vscode.WebviewPanel, private mode: TranscriptMode, private readonly d: Deps, private readonly onGone: () => void) {
    this.follower = d.host.view.transcript(agent, (c) => this.enqueue(c));
    const wv = panel.webview;
    const dist = vscode.Uri.joinPath(d.extensionUri, 'dist', 'webview');
    const media = vscode.Uri.joinPath(d.extensionUri, 'media');
    wv.options = { enableScripts: true, localResourceRoots: [dist, media] };
    panel.title = `${agent} · transcript`;
    panel.iconPath = vscode.Uri.joinPath(d.extensionUri, 'media', 'agent-teams.svg');
    wv.html = transcriptHtml({
      nonce: nonce(), cspSource: wv.cspSource,
      script: wv.asWebviewUri(vscode.Uri.joinPath(dist, 'transcript.js')).toString(),
      style: wv.asWebviewUri(vscode.Uri.joinPath(media, 'transcript.css')).toString(),
    });
    this.subs.push(
      wv.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidDispose(() => this.dispose()),
      d.ctx().session.onEvent((e) => this.onRuntimeEvent(e)),
      d.host.onDidChange((kinds) => {
        // A plan approved (requests) ends "planning — waiting for approval" in the header.
        if (kinds.has('roster') || kinds.has('activity') || kinds.has('requests')) void this.sendStatus();
        if (kinds.has('requests')) void this.sendPending();
      }),
      d.asks.onDidChange(() => void this.sendPending()),
    );
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  private post(m: TranscriptToWebview): void {
    if (!this.disposed) void this.panel.webview.postMessage(m);
  }

  private enqueue(c: ItemChange): void {
    if (this.loading) {
      if (c.op === 'put') this.loading.set(c.item.key, c.item);
      else this.loading.delete(c.key);
      return;
    }
    if (!this.ready) return;
    this.queue.push(c);
    // Changes of one burst (a stored message with its tool calls) go in one message.
    this.flushTimer ??= setTimeout(() => this.flush(), 0);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const q = this.queue;
    this.queue = [];
    let items: TranscriptItem[] = [];
    for (const c of q) {
      if (c.op === 'put') {
        items.push(c.item);
        continue;
      }
      if (items.length) this.post({ type: 'items', reset: false, items });
      items = [];
      this.post({ type: 'remove', keys: [c.key] });
    }
    if (items.length) this.post({ type: 'items', reset: false, items });
  }

  private onRuntimeEvent(e: RuntimeEvent): void {
    if (!this.ready || !('agent' in e) || e.agent !== this.agent) return;
    if (e.type === 'text_delta') {
      // The builder keeps the text (for a panel opened mid-stream); the panel gets the piece.
      const before = this.follower.builder.live(e);
      const item = before[0]?.op === 'put' ? before[0].item : undefined;
      if (item?.kind === 'text') this.post({ type: 'delta', key: item.key, text: e.text, restart: item.text === e.text });
      return;
    }
    if (e.type === 'activity') void this.sendStatus();
    for (const c of this.follower.builder.live(e)) this.enqueue(c);
  }

  private async start(): Promise<void> {
    this.ready = false;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.queue = [];
    // Loaded items are collected and sent as one reset message, then changes flow one by one.
    const all = new Map<string, TranscriptItem>();
    this.loading = all;
    this.stopFollow?.();
    this.stopFollow = undefined;
    const follower = this.d.host.view.transcript(this.agent, (c) => this.enqueue(c));
    this.follower = follower;
    let skipped = 0;
    try {
      skipped = (await follower.load()).skippedBytes;
    } catch (err) {
      this.d.log.warn(`transcript of ${this.agent}: ${errorText(err)}`);
    }
    // A later load (the page asked again, the file was replaced) took over.
    if (this.follower !== follower) return;
    this.loading = null;
    this.post({ type: 'init', agent: this.agent, mode: this.mode, trusted: vscode.workspace.isTrusted, skippedBytes: skipped });
    // The newest screenful first: the first paint does not wait for the whole history.
    const items = [...all.values()];
    const split = Math.max(0, items.length - FIRST_ITEMS);
    this.post({ type: 'items', reset: true, items: items.slice(split) });
    this.ready = true;
    void this.sendOlder(items.slice(0, split), ++this.generation);
    if (!this.disposed) {
      this.stopFollow = this.follower.follow({
        pollMs: POLL_MS,
        onReplaced: () => void this.start(),
        onError: (err) => this.d.log.warn(`transcript of ${this.agent}: ${errorText(err)}`),
        changes: (onChange) => this.d.host.session.watchFiles(['transcripts'], (e) => e.name === this.agent && onChange()),
      });
    }
    await Promise.all([this.sendStatus(), this.sendPending()]);
  }

  /** The history before the first screenful, in chunks, yielding between them. */
  private async sendOlder(items: TranscriptItem[], generation: number): Promise<void> {
    for (let at = 0; at < items.length; at += OLDER_CHUNK) {
      await new Promise<void>((r) => setImmediate(r));
      if (this.disposed || generation !== this.generation) return;
      this.post({ type: 'older', items: items.slice(at, at + OLDER_CHUNK), done: at + OLDER_CHUNK >= items.length });
    }
  }

  private async sendStatus(): Promise<void> {
    if (!this.ready) return;
    const rt = this.d.ctx().session;
    const config = await this.d.host.view.roster().catch(() => null);
    const lead = (config as { lead?: { usage?: Parameters<typeof usageTotal>[0]; model?: string } } | null)?.lead;
    const m = config?.members.find((x) => x.name === this.agent);
    const usage = this.agent === 'lead' ? lead?.usage : m?.usage;
    const model = (this.agent === 'lead' ? lead?.model : m?.model) ?? vscode.workspace.getConfiguration('agentTeams').get<string>('model');
    const activity = rt.activity(this.agent);
    // Held by plan mode: said first, in the tree's words (docs/file-formats.md, "Plan mode").
    const plans = m?.plan_mode ? await this.d.host.view.requests({ kind: 'plan' }).catch(() => []) : [];
    const status: PanelStatus = {
      // A teammate that has shut down says so in the Team tree's words, not "stopped".
      activity: [m && isPlanning(m, plans) ? PLANNING_WORDS : '', m?.status === 'shutdown' && activity?.kind === 'stopped' ? 'shut down' : activityWords(activity)].filter(Boolean).join(', '),
      status: this.agent === 'lead' ? 'lead' : m?.status ?? 'unknown',
      tokens: usageTotal(usage),
      cost: formatCost(estimateCost(model, usage)),
      canStop: rt.agentsRunning && activity !== undefined && activity.kind !== 'remote' && (this.agent === 'lead' || m?.status !== 'shutdown'),
    };
    this.post({ type: 'status', status });
  }

  private async sendPending(): Promise<void> {
    if (!this.ready) return;
    const plans = await this.d.host.view.requests({ kind: 'plan', status: 'pending' }).catch(() => []);
    const asks: PendingAsk[] = plans
      .filter((r) => r.from === this.agent)
      .map((r) => ({ kind: 'plan' as const, requestId: r.request_id, plan: String((r as { plan?: unknown }).plan ?? ''), createdAt: r.created_at }));
    for (const b of this.d.asks.list(this.agent)) asks.push({ kind: 'bash', id: b.id, command: b.command });
    const approver = vscode.workspace.getConfiguration('agentTeams').get<string>('planApproval') === 'lead' ? 'lead' : 'user';
    this.post({ type: 'pending', asks, planApprover: approver });
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = TranscriptToHost.safeParse(raw);
    if (!parsed.success) {
      this.d.log.warn(`transcript panel: ignored an invalid message (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return;
    }
    const m = parsed.data;
    const ctx = this.d.ctx();
    const answer = async (ref: string, work: () => Promise<unknown>): Promise<void> => {
      try {
        await work();
        this.post({ type: 'result', ref, ok: true });
      } catch (err) {
        this.post({ type: 'result', ref, ok: false, error: errorText(err) });
      }
    };
    switch (m.type) {
      case 'ready':
        await this.start();
        return;
      case 'mode':
        this.mode = m.mode;
        this.post({ type: 'mode', mode: m.mode });
        return;
      case 'send':
        if (!vscode.workspace.isTrusted) return answer(m.ref, async () => Promise.reject(new Error('Restricted Mode: messages are not sent.')));
        return answer(m.ref, () => mailFromView(ctx.scope, this.agent, m.content));
      case 'stop':
        return answer(m.ref, () => stopFromView(ctx.scope, this.agent));
      case 'decidePlan':
        return answer(m.ref, () => ctx.decidePlan(m.requestId, m.approve, m.feedback));
      case 'decideBash':
        return answer(m.ref, async () => {
          if (!this.d.asks.answer(m.id, m.allow ? 'allow' : 'deny')) throw new Error('That question was answered already.');
        });
      case 'openLink':
        await vscode.env.openExternal(vscode.Uri.parse(m.href, true));
        return;
      case 'showChanges':
        await vscode.commands.executeCommand('agentTeams.showChanges', { agent: this.agent });
        return;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopFollow?.();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
    this.onGone();
  }
}

/** All open transcript panels; restores them after a reload (the first bundle registers it as the serializer). */
export class TranscriptPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Map<string, TranscriptPanel>();

  constructor(private readonly d: Deps) {}

  open(agent: string): void {
    if (!NAME_RE.test(agent)) throw new Error(`invalid agent name ${JSON.stringify(agent)}`);
    const open = this.panels.get(agent);
    if (open) return open.reveal();
    const panel = vscode.window.createWebviewPanel(TRANSCRIPT_VIEW_TYPE, `${agent} · transcript`, vscode.ViewColumn.Active, { enableScripts: true, retainContextWhenHidden: false });
    this.adopt(agent, panel);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const s = state as { agent?: unknown; mode?: unknown } | undefined;
    const agent = s?.agent;
    if (typeof agent !== 'string' || !NAME_RE.test(agent) || this.panels.has(agent)) {
      panel.dispose();
      return;
    }
    const mode = s?.mode === 'summary' || s?.mode === 'normal' || s?.mode === 'verbose' ? s.mode : undefined;
    this.adopt(agent, panel, mode);
  }

  private adopt(agent: string, panel: vscode.WebviewPanel, mode = transcriptMode()): void {
    this.panels.set(agent, new TranscriptPanel(agent, panel, mode, this.d, () => this.panels.delete(agent)));
  }

  /** For tests and benches: which agents have a panel. */
  get agents(): string[] {
    return [...this.panels.keys()];
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
