// The one place that decides how a transcript reads in each mode (docs/file-formats.md, "Transcripts"; README "Watching the work"):
// which items show, how a tool call is summed up in one line, what is folded. The transcript
// panel and the CLI (`log`, `export`, `/log`) both render these rows, so they never disagree.
//   summary  the agent's text, the person's prompts, mail in and out, requests, errors,
//            pauses and compactions; runs of other tool calls fold into one line
//   normal   everything, each tool call as one line with its result (long output folded)
//   verbose  everything, tool input in full and output unfolded
import { toolFacts } from './tool-facts';
import type { TranscriptItem, TranscriptMode } from './transcript-items';

export type RowKind = TranscriptItem['kind'] | 'mail_out' | 'request' | 'group';
export type Tone = 'normal' | 'muted' | 'warning' | 'error';

export interface Row {
  /** The first item's key (a group row: `group:` + its first item's key). */
  key: string;
  kind: RowKind;
  /** Who or what, shown first: `lead`, `bash`, `mail from bob`. */
  label: string;
  /** One line. */
  head: string;
  /** Tool input (JSON or a command), shown as code when present. */
  input?: string;
  body?: string;
  format: 'markdown' | 'plain';
  /** `none`: nothing to fold; `open`/`closed`: the body starts shown or hidden. */
  fold: 'none' | 'open' | 'closed';
  tone: Tone;
  ts?: number;
  streaming?: boolean;
  /** Keys of the items this row shows (several for a group). */
  items: string[];
}

type Tool = Extract<TranscriptItem, { kind: 'tool' }>;

/** Results longer than this start folded in normal mode. */
const FOLD_LINES = 12;
const FOLD_CHARS = 1200;

function parseInput(t: Tool): Record<string, unknown> {
  try {
    const v = JSON.parse(t.input) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function oneLine(s: string, max = 120): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function toolHead(t: Tool): string {
  const input = parseInput(t);
  // The argument that says what a call does (tool-facts.ts); anything else shows its input compactly.
  const arg = toolFacts(t.tool).keyArg;
  let what = arg !== undefined ? str(input[arg]) : '';
  if (t.tool === 'write_file') what += ` (${str(input.content).length} chars)`;
  if (!what && t.input !== '{}') what = t.input;
  const state = t.running ? ' · running…' : t.isError ? ' · failed' : '';
  return `${oneLine(what)}${state}`;
}

function lines(s: string): number {
  let n = 1;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function toolRow(t: Tool, mode: TranscriptMode): Row {
  const input = parseInput(t);
  const base = { key: t.key, ts: t.ts, items: [t.key], format: 'plain' as const };
  const tone: Tone = t.isError ? 'error' : 'normal';
  if (toolFacts(t.tool).row === 'mail' && mode !== 'verbose') {
    const to = t.tool === 'broadcast' ? 'everyone' : str(input.to);
    const type = str(input.msg_type);
    return {
      ...base, kind: 'mail_out', label: `mail to ${to}`, head: type && type !== 'message' ? type : '',
      body: str(input.content) + (t.isError && t.result ? `\n\n(not sent: ${t.result})` : ''), format: 'markdown', fold: 'none', tone,
    };
  }
  if (toolFacts(t.tool).row === 'request' && mode !== 'verbose') {
    return {
      ...base, kind: 'request', label: t.tool.replace(/_/g, ' '), head: oneLine(t.result ?? (t.running ? 'sending…' : ''), 160),
      body: str(input.plan ?? input.reason ?? input.feedback) || undefined, format: 'markdown', fold: 'none', tone,
    };
  }
  const result = t.result;
  if (mode === 'verbose') {
    return {
      ...base, kind: 'tool', label: t.tool, head: toolHead(t), input: prettyJson(t.input), body: result,
      fold: result === undefined ? 'none' : 'open', tone,
    };
  }
  const long = result !== undefined && (result.length > FOLD_CHARS || lines(result) > FOLD_LINES);
  return {
    ...base, kind: 'tool', label: t.tool, head: toolHead(t), body: result,
    fold: result === undefined || result === '' ? 'none' : long ? 'closed' : 'open', tone,
  };
}

function prettyJson(s: string): string {
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}

/**
 * What a typed message is, in words (its type and request id are the protocol's: the id
 * answers nothing a reader asks, and the Team tree and notifications name requests by what
 * they ask).
 */
function mailWords(type: string, approve: boolean | undefined): string {
  switch (type) {
    case 'message': return '';
    case 'broadcast': return 'to everyone';
    case 'shutdown_request': return 'asks to shut down';
    case 'shutdown_response': return approve === false ? 'declines to shut down' : 'agrees to shut down';
    case 'plan_approval_request': return 'plan for approval';
    case 'plan_approval_response': return approve === false ? 'plan rejected' : approve ? 'plan approved' : 'answer to the plan';
    case 'result': return 'result';
    default: return type.replace(/_/g, ' ');
  }
}

const num = (n: number): string => n.toLocaleString('en-US');

/** How one item reads in `mode`, or null when the mode hides it. */
export function presentItem(item: TranscriptItem, mode: TranscriptMode, agent: string): Row | null {
  const base = { key: item.key, ts: item.ts, items: [item.key] };
  switch (item.kind) {
    case 'prompt':
      return { ...base, kind: 'prompt', label: 'to ' + agent, head: '', body: item.text, format: 'markdown', fold: 'none', tone: 'normal' };
    case 'text':
      return { ...base, kind: 'text', label: agent, head: '', body: item.text, format: 'markdown', fold: 'none', tone: 'normal', streaming: item.streaming };
    case 'mail_in':
      return {
        ...base, kind: 'mail_in', label: `mail from ${item.from}`, head: mailWords(item.type, item.approve),
        body: item.content, format: 'markdown', fold: 'none', tone: 'normal',
      };
    case 'notice': {
      // A hook that said go on is churn in a summary; one that blocked or failed is not.
      if (mode === 'summary' && (item.what === 'retry' || item.what === 'note' || (item.what === 'hook' && item.level === 'info'))) return null;
      const tone: Tone = item.level === 'error' ? 'error' : item.level === 'warning' ? 'warning' : 'muted';
      return {
        ...base, kind: 'notice', label: item.what, head: item.text, body: mode === 'summary' ? undefined : item.detail, format: 'markdown',
        fold: item.detail && mode !== 'summary' ? (mode === 'verbose' ? 'open' : 'closed') : 'none', tone,
      };
    }
    case 'usage':
      // Tokens per round are for a close look: the panel's header has the agent's total and cost.
      if (mode !== 'verbose') return null;
      return {
        ...base, kind: 'usage', label: 'tokens', format: 'plain', fold: 'none', tone: 'muted',
        head: `${num(item.input)} in · ${num(item.output)} out · ${num(item.cacheRead)} cache read · ${num(item.cacheWrite)} cache write`,
      };
    case 'tool': {
      return toolRow(item, mode);
    }
  }
}

/** A tool call that summary mode folds into a group (everything but mail and requests). */
function isChurn(row: Row): boolean {
  return row.kind === 'tool';
}

function groupRow(tools: Tool[]): Row {
  const counts = new Map<string, number>();
  for (const t of tools) counts.set(t.tool, (counts.get(t.tool) ?? 0) + 1);
  const failed = tools.filter((t) => t.isError).length;
  const running = tools.some((t) => t.running);
  const kinds = [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ');
  return {
    key: `group:${tools[0]!.key}`, kind: 'group', label: tools.length === 1 ? '1 tool call' : `${tools.length} tool calls`,
    head: kinds + (failed ? ` · ${failed} failed` : '') + (running ? ' · running…' : ''),
    body: tools.map((t) => `${t.isError ? '✗' : t.running ? '…' : '✓'} ${t.tool} ${toolHead(t)}`).join('\n'),
    format: 'plain', fold: 'closed', tone: failed ? 'warning' : 'muted', ts: tools[0]!.ts, items: tools.map((t) => t.key),
  };
}

export type RowChange = { op: 'add'; row: Row } | { op: 'replace'; index: number; row: Row } | { op: 'remove'; index: number };

/**
 * The rows of one transcript in one mode, kept up to date item by item: a new item adds a
 * row or grows the last group; an updated item (a tool's result, streamed text) replaces only
 * its row. Switching modes rebuilds from the items, which are kept.
 */
export class RowList {
  readonly rows: Row[] = [];
  private readonly items = new Map<string, TranscriptItem>();
  private order: string[] = [];
  /** Item key → index of its row. */
  private rowOf = new Map<string, number>();

  constructor(private mode: TranscriptMode, private readonly agent: string) {}

  get itemCount(): number {
    return this.order.length;
  }

  item(key: string): TranscriptItem | undefined {
    return this.items.get(key);
  }

  /** Every item, in the order first put. */
  allItems(): TranscriptItem[] {
    return this.order.map((k) => this.items.get(k)!);
  }

  put(item: TranscriptItem): RowChange | null {
    const known = this.items.has(item.key);
    this.items.set(item.key, item);
    if (known) {
      const index = this.rowOf.get(item.key);
      if (index === undefined) return null;
      const row = this.rebuild(this.rows[index]!);
      if (!row) return null;
      this.rows[index] = row;
      return { op: 'replace', index, row };
    }
    this.order.push(item.key);
    return this.place(item);
  }

  /** Drops an item (a streamed text replaced by the stored message). */
  remove(key: string): RowChange | null {
    if (!this.items.delete(key)) return null;
    this.order = this.order.filter((k) => k !== key);
    const index = this.rowOf.get(key);
    this.rowOf.delete(key);
    if (index === undefined) return null;
    const row = this.rows[index]!;
    if (row.items.length > 1) {
      const rebuilt = this.rebuild({ ...row, items: row.items.filter((k) => k !== key) })!;
      this.rows[index] = rebuilt;
      return { op: 'replace', index, row: rebuilt };
    }
    this.rows.splice(index, 1);
    for (const [k, i] of this.rowOf) if (i > index) this.rowOf.set(k, i - 1);
    return { op: 'remove', index };
  }

  setMode(mode: TranscriptMode): void {
    this.mode = mode;
    this.rows.length = 0;
    this.rowOf.clear();
    for (const k of this.order) this.place(this.items.get(k)!);
  }

  private place(item: TranscriptItem): RowChange | null {
    const row = presentItem(item, this.mode, this.agent);
    if (!row) return null;
    if (this.mode === 'summary' && isChurn(row)) {
      const last = this.rows[this.rows.length - 1];
      if (last?.kind === 'group') {
        const index = this.rows.length - 1;
        const grown = groupRow([...last.items, item.key].map((k) => this.items.get(k) as Tool));
        this.rows[index] = grown;
        this.rowOf.set(item.key, index);
        return { op: 'replace', index, row: grown };
      }
      const group = groupRow([item as Tool]);
      this.rows.push(group);
      this.rowOf.set(item.key, this.rows.length - 1);
      return { op: 'add', row: group };
    }
    this.rows.push(row);
    this.rowOf.set(item.key, this.rows.length - 1);
    return { op: 'add', row };
  }

  private rebuild(row: Row): Row | null {
    if (row.kind === 'group') return groupRow(row.items.map((k) => this.items.get(k) as Tool));
    const item = this.items.get(row.items[0]!);
    return item ? presentItem(item, this.mode, this.agent) ?? row : null;
  }
}

/** All rows of `items` in `mode` (the CLI and the Markdown export). */
export function toRows(items: Iterable<TranscriptItem>, mode: TranscriptMode, agent: string): Row[] {
  const list = new RowList(mode, agent);
  for (const i of items) list.put(i);
  return list.rows;
}
