// One message → one <article>, rendered for what it is: a message, a broadcast, a shutdown
// request or answer, a plan submitted for approval (with Approve / Reject and a feedback box
// while pending) or the answer to one. All model text goes through renderMarkdown.
import type { RequestState } from '../shared/webview-protocol';
import type { Message } from '../shared/schemas';
import { renderMarkdown } from './markdown';

export interface PlanActions {
  decide(requestId: string, approve: boolean, feedback: string, card: HTMLElement): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function kindWords(m: Message): string {
  switch (m.type) {
    case 'message': return 'message';
    case 'broadcast': return 'broadcast';
    case 'shutdown_request': return 'shutdown request';
    case 'shutdown_response': return m.approve ? 'agreed to shut down' : 'declined to shut down';
    case 'plan_approval_request': return 'plan for approval';
    case 'plan_approval_response': return m.approve ? 'plan approved' : 'plan rejected';
    case 'result': return 'result';
  }
}

function time(ts: number): HTMLTimeElement {
  const d = new Date(ts * 1000);
  const t = el('time', 'time', d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }));
  t.dateTime = d.toISOString();
  t.title = d.toLocaleString();
  return t;
}

export function renderMessage(m: Message, opts: { toLabel?: string }): HTMLElement {
  const card = el('article', `msg type-${m.type}${m.from === 'user' ? ' mine' : ''}`);
  card.dataset.id = m.id;
  const to = opts.toLabel ?? m.to;
  card.setAttribute('aria-label', `${m.from} to ${to}, ${kindWords(m)}, ${new Date(m.timestamp * 1000).toLocaleTimeString()}`);
  const head = el('header');
  head.append(el('span', 'from', m.from), el('span', 'arrow', ' → '), el('span', 'to', to));
  if (m.type !== 'message') head.append(el('span', `kind kind-${m.type}`, kindWords(m)));
  head.append(time(m.timestamp));
  const body = el('div', 'body');
  const text = m.type === 'plan_approval_request' ? (m.plan || m.content) : m.content;
  body.append(renderMarkdown(text));
  card.append(head, body);
  if ('request_id' in m && typeof m.request_id === 'string') card.dataset.request = m.request_id;
  return card;
}

/** Shows a plan card's state; while pending, the controls that answer it. */
export function updatePlanCard(card: HTMLElement, state: RequestState | undefined, actions: PlanActions): void {
  const requestId = card.dataset.request!;
  const status = state?.status ?? 'pending';
  if (card.dataset.status === status) return;
  card.dataset.status = status;
  card.querySelector('.plan-state')?.remove();
  card.querySelector('.plan-actions')?.remove();
  const who = state?.responded_by ? ` by ${state.responded_by}` : '';
  const badge = el('p', `plan-state state-${status}`, status === 'pending' ? `Waiting for ${state?.to ?? 'approval'}` : `${capital(status)}${who}`);
  card.append(badge);
  if (status !== 'pending') return;
  const box = el('div', 'plan-actions');
  const feedback = document.createElement('vscode-textarea') as HTMLElement & { value: string };
  feedback.setAttribute('placeholder', 'Feedback (required to reject)');
  feedback.setAttribute('aria-label', 'Feedback on this plan');
  feedback.setAttribute('rows', '2');
  const approve = button('Approve', false);
  const reject = button('Reject', true);
  approve.addEventListener('click', () => actions.decide(requestId, true, feedback.value ?? '', card));
  reject.addEventListener('click', () => {
    if (!(feedback.value ?? '').trim()) {
      feedback.focus();
      setError(card, 'Say what should change to reject the plan.');
      return;
    }
    actions.decide(requestId, false, feedback.value, card);
  });
  const row = el('div', 'buttons');
  row.append(approve, reject);
  box.append(feedback, row, el('p', 'error'));
  card.append(box);
}

export function setError(card: HTMLElement, text: string): void {
  const e = card.querySelector('.plan-actions .error');
  if (e) {
    e.textContent = text;
    e.setAttribute('role', 'alert');
  }
}

export function button(label: string, secondary: boolean): HTMLElement {
  const b = document.createElement('vscode-button');
  b.textContent = label;
  if (secondary) b.setAttribute('secondary', '');
  return b;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
