// One transcript row as DOM: head line, tool input, body (sanitised markdown for model text
// and mail, plain text for tool output, terminal escapes removed), folded by the shared rules
// until the reader opens it. Nothing here builds HTML from strings: text goes in as text.
import { stripAnsi } from '../shared/transcript-items';
import type { Row } from '../shared/transcript-rows';
import { renderMarkdown } from './markdown';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const clock = (ts?: number): string => (ts ? new Date(ts * 1000).toLocaleTimeString() : '');

export interface RowOptions {
  /** The reader's own fold choice for this row, if any. */
  open(key: string): boolean | undefined;
  toggled(key: string, open: boolean): void;
}

export function fillBody(target: HTMLElement, row: Row): void {
  target.replaceChildren();
  if (row.body === undefined || row.body === '') return;
  if (row.format === 'markdown') target.append(renderMarkdown(row.body));
  else target.textContent = stripAnsi(row.body);
}

export function renderRow(row: Row, opts: RowOptions): HTMLElement {
  const root = el('div', `row kind-${row.kind} tone-${row.tone}${row.streaming ? ' streaming' : ''}`);
  root.dataset.key = row.key;
  const head = el('div', 'head');
  head.append(el('span', 'label', stripAnsi(row.label)));
  if (row.head) head.append(el('span', 'headtext', stripAnsi(row.head)));
  head.append(el('span', 'time', clock(row.ts)));
  root.append(head);
  if (row.input) root.append(el('pre', 'input', stripAnsi(row.input)));
  const body = el(row.format === 'markdown' ? 'div' : 'pre', row.format === 'markdown' ? 'body md' : 'body');
  fillBody(body, row);
  if (row.fold === 'none') {
    if (body.childNodes.length) root.append(body);
    return root;
  }
  const details = el('details', 'fold');
  const lines = (row.body ?? '').split('\n').length;
  details.append(el('summary', '', row.kind === 'group' ? 'show calls' : `output · ${lines} line${lines === 1 ? '' : 's'}`), body);
  details.open = opts.open(row.key) ?? row.fold === 'open';
  details.addEventListener('toggle', () => opts.toggled(row.key, details.open));
  root.append(details);
  return root;
}
