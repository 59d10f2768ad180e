// The transcript panel: one agent's work as it happens — its text streaming in, tool calls
// with their results, mail with its sender, requests to answer inline, errors and tokens —
// with a mode switch, a composer that messages the agent and a Stop button. Rows come from
// the shared rules (src/shared/transcript-rows.ts); the list is windowed, and a streamed
// piece of text extends its row without redrawing the others. Every message to the host is
// validated against TranscriptToHost first.
import type { TranscriptItem, TranscriptMode } from '../shared/transcript-items';
import { TranscriptToHost, type PanelStatus, type PendingAsk, type TranscriptToWebview } from '../shared/transcript-protocol';
import { RowList, type Row, type RowChange } from '../shared/transcript-rows';
import { hostLink, type VsCodeApi } from './host-link';
import { renderMarkdown } from './markdown';
import { renderRow } from './transcript-row';
import { VirtualList } from './virtual-list';

declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

const $ = <T extends HTMLElement>(sel: string): T => document.querySelector(sel) as T;
const h = <K extends keyof HTMLElementTagNameMap>(tag: K, cls = '', text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

let agent = '';
let mode: TranscriptMode = 'normal';
let rows = new RowList(mode, agent);
const folds = new Map<string, boolean>();
const link = hostLink<TranscriptToHost>(vscode, TranscriptToHost);
const { post, nextRef } = link;

const list = new VirtualList<Row>($('#rows'), {
  render: (row, index) => renderRow(row, {
    open: (k) => folds.get(k),
    toggled: (k, open) => {
      folds.set(k, open);
      list.remeasure(index);
    },
  }),
});

function apply(c: RowChange | null): void {
  if (!c) return;
  if (c.op === 'add') list.push(c.row);
  else if (c.op === 'replace') list.replace(c.index, c.row);
  else list.remove(c.index);
}

function rebuild(): void {
  list.reset(rows.rows);
  $('#empty').hidden = rows.rows.length > 0;
}

// ── older history: arrives in chunks after the newest screenful, put in front at the end ──
let older: TranscriptItem[] = [];
function olderChunk(items: TranscriptItem[], done: boolean): void {
  for (const i of items) older.push(i);
  $('#rows').setAttribute('aria-busy', String(!done));
  if (!done) return;
  if (pendingDelta) flushDelta();
  const shown = rows.rows;
  const next = new RowList(mode, agent);
  for (const i of older) next.put(i);
  // Items that came since the reset (live changes) follow; one already older updates in place.
  for (const i of rows.allItems()) next.put(i);
  older = [];
  const added = next.rows.length - shown.length;
  const sameTail = added >= 0 && shown.every((r, k) => next.rows[added + k]!.key === r.key);
  rows = next;
  if (sameTail) list.prepend(rows.rows, added);
  else list.reset(rows.rows);
  $('#empty').hidden = rows.rows.length > 0;
}

// ── streamed text: pieces gathered per frame, then one row updated ──
let pendingDelta: { key: string; text: string; restart: boolean } | null = null;
let deltaFrame = 0;
function flushDelta(): void {
  deltaFrame = 0;
  const d = pendingDelta;
  pendingDelta = null;
  if (!d) return;
  const prev = rows.item(d.key);
  const text = (d.restart || prev?.kind !== 'text' ? '' : prev.text) + d.text;
  const item: TranscriptItem = { kind: 'text', key: d.key, text, streaming: true };
  apply(rows.put(item));
  $('#empty').hidden = true;
}
function onDelta(key: string, text: string, restart: boolean): void {
  if (pendingDelta && pendingDelta.key === key && !restart) pendingDelta.text += text;
  else {
    if (pendingDelta) flushDelta();
    pendingDelta = { key, text, restart };
  }
  deltaFrame ||= requestAnimationFrame(flushDelta);
}

// ── header: status, tokens, cost, mode, stop ──
const modeButtons = [...document.querySelectorAll<HTMLButtonElement>('#modes button')];
for (const b of modeButtons) {
  b.addEventListener('click', () => post({ type: 'mode', mode: b.dataset.mode as TranscriptMode }));
}
function showMode(): void {
  for (const b of modeButtons) b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
}
$('#stop').addEventListener('click', () => {
  const b = $<HTMLButtonElement>('#stop');
  b.disabled = true;
  post({ type: 'stop', ref: nextRef() }, (ok, error) => {
    b.disabled = false;
    if (!ok) showError(error ?? 'could not stop');
  });
});
$('#changes').addEventListener('click', () => post({ type: 'showChanges' }));
function showStatus(s: PanelStatus): void {
  $('#activity').textContent = s.activity;
  $('#usage').textContent = `${s.tokens.toLocaleString('en-US')} tokens · ${s.cost}`;
  $<HTMLButtonElement>('#stop').hidden = !s.canStop;
}
function showError(text: string): void {
  const e = $('#error');
  e.textContent = text;
  e.hidden = false;
}

// ── requests waiting for the person: plan approvals and bash approvals ──
function showPending(asks: PendingAsk[], approver: 'user' | 'lead'): void {
  const box = $('#pending');
  box.replaceChildren();
  for (const a of asks) {
    const card = h('div', `ask ask-${a.kind}`);
    const actions = h('div', 'actions');
    const answered = (ok: boolean, error?: string): void => {
      if (ok) return;
      actions.querySelectorAll('button').forEach((b) => (b.disabled = false));
      card.append(h('div', 'error', error ?? 'failed'));
    };
    const disable = (): void => actions.querySelectorAll('button').forEach((b) => (b.disabled = true));
    if (a.kind === 'plan') {
      card.append(h('div', 'ask-title', `${agent} submitted a plan`), h('div', 'md'));
      card.lastElementChild!.append(renderMarkdown(a.plan));
      if (approver !== 'user') {
        card.append(h('div', 'note', 'The lead answers plans (agentTeams.planApproval is "lead").'));
      } else {
        const feedback = h('textarea', 'feedback');
        feedback.placeholder = 'Feedback (needed to reject)';
        feedback.setAttribute('aria-label', 'Feedback on the plan');
        const approve = h('button', 'primary', 'Approve');
        const reject = h('button', '', 'Reject');
        approve.addEventListener('click', () => {
          disable();
          post({ type: 'decidePlan', ref: nextRef(), requestId: a.requestId, approve: true, feedback: feedback.value }, answered);
        });
        reject.addEventListener('click', () => {
          if (!feedback.value.trim()) {
            feedback.focus();
            feedback.placeholder = 'Say what should change, then Reject';
            return;
          }
          disable();
          post({ type: 'decidePlan', ref: nextRef(), requestId: a.requestId, approve: false, feedback: feedback.value }, answered);
        });
        actions.append(approve, reject);
        card.append(feedback, actions);
      }
    } else {
      card.append(h('div', 'ask-title', `${agent} wants to run`), h('pre', 'input', a.command));
      const allow = h('button', 'primary', 'Allow');
      const deny = h('button', '', 'Deny');
      allow.addEventListener('click', () => (disable(), post({ type: 'decideBash', ref: nextRef(), id: a.id, allow: true }, answered)));
      deny.addEventListener('click', () => (disable(), post({ type: 'decideBash', ref: nextRef(), id: a.id, allow: false }, answered)));
      actions.append(allow, deny);
      card.append(actions);
    }
    box.append(card);
  }
  box.hidden = asks.length === 0;
}

// ── composer ──
const input = $<HTMLTextAreaElement>('#message');
const saved = (vscode.getState() as { agent?: string; draft?: string; mode?: TranscriptMode } | undefined) ?? {};
input.value = saved.draft ?? '';
/** What a reload restores: whose transcript, the mode chosen here and the unsent draft. */
const saveState = (): void => vscode.setState({ agent, mode, draft: input.value });
input.addEventListener('input', saveState);
function send(): void {
  const content = input.value;
  if (!content.trim()) return;
  const b = $<HTMLButtonElement>('#send');
  b.disabled = true;
  post({ type: 'send', ref: nextRef(), content }, (ok, error) => {
    b.disabled = false;
    if (ok) {
      input.value = '';
      saveState();
      $('#error').hidden = true;
    } else showError(error ?? 'not sent');
  });
}
$('#send').addEventListener('click', send);
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    send();
  }
});

// Links in model text open through the host (the webview navigates nowhere).
document.addEventListener('click', (e) => {
  const a = (e.target as HTMLElement).closest('a');
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute('href') ?? '';
  if (/^https?:\/\//i.test(href)) post({ type: 'openLink', href });
});

window.addEventListener('message', (ev: MessageEvent<TranscriptToWebview>) => {
  const m = ev.data;
  switch (m.type) {
    case 'init':
      agent = m.agent;
      mode = m.mode;
      document.title = `${agent} · transcript`;
      $('#agent').textContent = agent;
      $('#skipped').hidden = m.skippedBytes === 0;
      $('#skipped').textContent = `The first ${(m.skippedBytes / 1048576).toFixed(1)} MB of this transcript are not shown (agent-teams export ${agent} has all of it).`;
      $<HTMLButtonElement>('#send').disabled = !m.trusted;
      saveState();
      rows = new RowList(mode, agent);
      showMode();
      break;
    case 'items':
      if (m.reset) {
        older = [];
        rows = new RowList(mode, agent);
        for (const i of m.items) rows.put(i);
        rebuild();
      } else {
        for (const i of m.items) apply(rows.put(i));
        if (m.items.length) $('#empty').hidden = true;
        // On screen in this task, not a frame later.
        list.flush();
      }
      break;
    case 'older':
      olderChunk(m.items, m.done);
      break;
    case 'remove':
      if (pendingDelta) flushDelta();
      for (const k of m.keys) apply(rows.remove(k));
      break;
    case 'delta':
      onDelta(m.key, m.text, m.restart);
      break;
    case 'status':
      showStatus(m.status);
      break;
    case 'pending':
      showPending(m.asks, m.planApprover);
      break;
    case 'mode':
      mode = m.mode;
      rows.setMode(mode);
      rebuild();
      showMode();
      saveState();
      break;
    case 'result':
      link.settle(m.ref, m.ok, m.error);
      break;
  }
});

post({ type: 'ready' });
