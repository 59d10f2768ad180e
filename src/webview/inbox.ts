// The inbox webview: a thread picker, the message list and a composer that writes as the
// user. Talks to the host only through the typed protocol; every outgoing message is
// validated against WebviewToHost before it is posted.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import { WebviewToHost, type HostToWebview, type ParticipantInfo, type RequestState } from '../shared/webview-protocol';
import type { Message } from '../shared/schemas';
import { Composer, type Draft } from './composer';
import { MessageList } from './message-list';
import { setError } from './render';
import { ALL, keyOf, threadFor, threadLabel } from './threads';

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const messages: Message[] = [];
const requests = new Map<string, RequestState>();
const threads = new Set<string>();
const pending = new Map<string, (ok: boolean, error?: string) => void>();
let seq = 0;
interface SavedState { view?: string; draft?: Draft }
const saved = (vscode.getState() as SavedState | undefined) ?? {};
let view = saved.view ?? ALL;
let draft = saved.draft;
/** The view's state survives it being hidden (the page is not kept alive meanwhile). */
function saveState(): void {
  vscode.setState({ view, draft } satisfies SavedState);
}

/** Validates and posts; `onResult` hears the host's answer to a send or decide. */
function post(msg: WebviewToHost, onResult?: (ok: boolean, error?: string) => void): void {
  const checked = WebviewToHost.safeParse(msg);
  if (!checked.success) {
    onResult?.(false, checked.error.issues[0]?.message ?? 'invalid');
    return;
  }
  if (onResult && 'ref' in msg) pending.set(msg.ref, onResult);
  vscode.postMessage(checked.data);
}
const nextRef = () => `r${++seq}`;

const list = new MessageList(requests, {
  decide(requestId, approve, feedback, card) {
    card.querySelectorAll('.plan-actions vscode-button').forEach((b) => b.setAttribute('disabled', ''));
    post({ type: 'decide', ref: nextRef(), requestId, approve, feedback }, (ok, error) => {
      if (ok) return;
      card.querySelectorAll('.plan-actions vscode-button').forEach((b) => b.removeAttribute('disabled'));
      setError(card, error ?? 'failed');
    });
  },
});
const composer = new Composer((to, content, done) => post({ type: 'send', ref: nextRef(), to, content }, done), (d) => {
  draft = d;
  saveState();
});
composer.restore(draft);

const banner = document.createElement('p');
banner.className = 'banner';
banner.setAttribute('role', 'status');
banner.hidden = true;
const picker = document.createElement('vscode-single-select') as HTMLElement & { value: string };
picker.setAttribute('aria-label', 'Thread');
picker.className = 'picker';
picker.addEventListener('change', () => selectView(picker.value || ALL));
const top = document.createElement('header');
top.className = 'top';
top.append(picker);
const app = document.getElementById('app')!;
app.append(banner, top, list.root, composer.root);

function option(value: string, label: string): HTMLElement {
  const o = document.createElement('vscode-option');
  o.setAttribute('value', value);
  o.textContent = label;
  // Marked on the option: the select re-reads its options on slotchange and would drop a value set earlier.
  if (value === view) o.setAttribute('selected', '');
  return o;
}

function renderPicker(): void {
  const keys = [...threads].sort();
  picker.replaceChildren(option(ALL, 'All threads'), ...keys.map((k) => option(k, threadLabel(k))));
  picker.value = view;
}

function addThreads(fresh: readonly Message[]): boolean {
  const before = threads.size;
  for (const m of fresh) threads.add(keyOf(m));
  return threads.size !== before;
}

function selectView(next: string): void {
  if (next === view && list.root.isConnected && app.dataset.loaded) return;
  view = next;
  saveState();
  picker.value = view;
  list.show(view, messages);
  const [a, b] = view === ALL ? [] : view.split('|');
  const other = a === 'user' ? b : b === 'user' ? a : undefined;
  if (other) composer.setRecipient(other);
}

function handle(msg: HostToWebview): void {
  switch (msg.type) {
    case 'init':
      banner.hidden = msg.trusted;
      banner.textContent = msg.trusted ? '' : 'Restricted Mode: agents do not run in this untrusted workspace. Messages you send are kept and delivered when the team runs.';
      break;
    case 'messages':
      if (msg.reset) {
        messages.length = 0;
        threads.clear();
      }
      for (const m of msg.messages) messages.push(m); // no spread: 100k+ arguments overflow the stack
      if (addThreads(msg.messages) || msg.reset) renderPicker();
      if (msg.reset) {
        if (view !== ALL && !threads.has(view)) view = ALL;
        list.show(view, messages);
        app.dataset.loaded = 'true';
      } else list.append(msg.messages);
      break;
    case 'participants':
      composer.setParticipants(msg.participants as ParticipantInfo[]);
      break;
    case 'requests':
      requests.clear();
      for (const r of msg.requests) requests.set(r.request_id, r);
      list.refreshRequests();
      break;
    case 'focus':
      if (msg.name) {
        selectView(threadFor(msg.name, threads));
        composer.setRecipient(msg.name);
      }
      composer.focus();
      break;
    case 'result':
      pending.get(msg.ref)?.(msg.ok, msg.error);
      pending.delete(msg.ref);
      break;
  }
}

window.addEventListener('message', (e: MessageEvent<HostToWebview>) => handle(e.data));
// Links in model text open through the host (http/https only), never inside the webview.
document.addEventListener('click', (e) => {
  const a = (e.target as Element | null)?.closest?.('a[href]');
  if (!a) return;
  e.preventDefault();
  post({ type: 'openLink', href: a.getAttribute('href') ?? '' });
});
post({ type: 'ready' });
