// The message list of the current view, windowed: only the newest PAGE messages are in the
// DOM at first and older ones are added a page at a time on request, so a 10k-message thread
// renders as fast as a short one. New messages are appended one node each, never re-rendered.
import type { RequestState } from '../shared/webview-protocol';
import type { Message } from '../shared/schemas';
import { type PlanActions, renderMessage, updatePlanCard } from './render';
import { ALL, broadcastKey, inView } from './threads';

const PAGE = 150;

export class MessageList {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly more: HTMLButtonElement;
  private readonly empty: HTMLElement;
  private visible: Message[] = [];
  private start = 0;
  private view = ALL;
  /** In the "all" view, the card shown for each broadcast and its recipients. */
  private broadcasts = new Map<string, { card: HTMLElement; to: string[] }>();

  constructor(private readonly requests: Map<string, RequestState>, private readonly actions: PlanActions) {
    this.root = document.createElement('section');
    this.root.className = 'messages';
    this.root.tabIndex = 0;
    this.root.setAttribute('aria-label', 'Messages');
    this.more = document.createElement('button');
    this.more.className = 'more';
    this.more.textContent = 'Show earlier messages';
    this.more.hidden = true;
    this.more.addEventListener('click', () => this.showEarlier());
    this.empty = document.createElement('p');
    this.empty.className = 'empty';
    this.empty.textContent = 'No messages yet. Messages between the lead, the teammates and you appear here.';
    this.list = document.createElement('div');
    this.list.className = 'list';
    this.list.setAttribute('role', 'log');
    this.root.append(this.more, this.empty, this.list);
  }

  /** Shows `view` out of `all` (first render, view switch). */
  show(view: string, all: readonly Message[]): void {
    this.view = view;
    this.broadcasts.clear();
    this.visible = view === ALL ? this.dedupe(all) : all.filter((m) => inView(view, m));
    this.start = Math.max(0, this.visible.length - PAGE);
    this.list.replaceChildren(this.cards(this.start, this.visible.length));
    this.more.hidden = this.start === 0;
    this.empty.hidden = this.visible.length > 0;
    this.root.scrollTop = this.root.scrollHeight;
  }

  /** Appends new messages that belong to the current view. */
  append(fresh: readonly Message[]): void {
    const atBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 40;
    const frag = document.createDocumentFragment();
    for (const m of fresh) {
      if (!inView(this.view, m)) continue;
      if (this.view === ALL && this.mergeBroadcast(m)) continue;
      this.visible.push(m);
      frag.append(this.card(m));
    }
    this.list.append(frag);
    this.empty.hidden = this.visible.length > 0;
    if (atBottom) this.root.scrollTop = this.root.scrollHeight;
  }

  /** Re-applies request states to the plan cards on screen. */
  refreshRequests(): void {
    for (const card of this.list.querySelectorAll<HTMLElement>('article.type-plan_approval_request')) {
      updatePlanCard(card, this.requests.get(card.dataset.request!), this.actions);
    }
  }

  private showEarlier(): void {
    const to = this.start;
    this.start = Math.max(0, to - PAGE);
    const before = this.root.scrollHeight;
    this.list.prepend(this.cards(this.start, to));
    this.root.scrollTop += this.root.scrollHeight - before;
    this.more.hidden = this.start === 0;
  }

  private cards(from: number, to: number): DocumentFragment {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) frag.append(this.card(this.visible[i]!));
    return frag;
  }

  private card(m: Message): HTMLElement {
    const key = this.view === ALL ? broadcastKey(m) : undefined;
    const entry = key ? this.broadcasts.get(key) : undefined;
    const card = renderMessage(m, { toLabel: entry && entry.to.length > 1 ? entry.to.join(', ') : undefined });
    if (key && entry) entry.card = card;
    if (m.type === 'plan_approval_request') updatePlanCard(card, this.requests.get(m.request_id), this.actions);
    return card;
  }

  /** Keeps one copy per broadcast, remembering its recipients. */
  private dedupe(all: readonly Message[]): Message[] {
    const out: Message[] = [];
    for (const m of all) {
      const key = broadcastKey(m);
      if (!key) { out.push(m); continue; }
      const entry = this.broadcasts.get(key);
      if (entry) entry.to.push(m.to);
      else { this.broadcasts.set(key, { card: undefined as unknown as HTMLElement, to: [m.to] }); out.push(m); }
    }
    return out;
  }

  /** A further copy of a broadcast already shown: add the recipient to its card. */
  private mergeBroadcast(m: Message): boolean {
    const key = broadcastKey(m);
    if (!key) return false;
    const entry = this.broadcasts.get(key);
    if (!entry) {
      this.broadcasts.set(key, { card: undefined as unknown as HTMLElement, to: [m.to] });
      return false;
    }
    entry.to.push(m.to);
    const to = entry.card?.querySelector('.to');
    if (to) to.textContent = entry.to.join(', ');
    return true;
  }
}
