// Turns what an agent leaves behind — the lines of its transcript file (docs/file-formats.md,
// "Transcripts") and, while it runs in this process, its live events — into the items of
// src/shared/transcript-items.ts. One builder per view: it merges a tool call with its
// result, replaces streamed text with the stored message, and ignores a line it has seen
// already (a live event and the file both bring it).
import type { RuntimeEvent } from '../runtime/types';
import { bounded, MAX_INPUT_CHARS, MAX_RESULT_CHARS, MAX_TEXT_CHARS, type NoticeWhat, type TranscriptItem } from '../../shared/transcript-items';

type Tool = Extract<TranscriptItem, { kind: 'tool' }>;

export type ItemChange = { op: 'put'; item: TranscriptItem } | { op: 'remove'; key: string };

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
}

const MAIL = /^<team-mail from="([^"]*)" type="([^"]*)"([^>]*)>\n([\s\S]*)\n<\/team-mail>$/;

/** `<identity>…</identity>` at the start of a prompt, and the line break after it. */
const IDENTITY = /^<identity>[^<]*<\/identity>\n?/;

const unattr = (s: string): string => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&amp;/g, '&');

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter((b): b is Block => !!b && typeof b === 'object') : [];
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content).map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`)).join('\n');
}

function inputJson(input: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(input ?? {}) ?? '{}';
  } catch {
    s = '{}';
  }
  return bounded(s, MAX_INPUT_CHARS);
}

const LIVE = 'live:text';

export class ItemBuilder {
  private readonly seen = new Set<string>();
  private readonly tools = new Map<string, Tool>();
  private liveAttempt = -1;
  private liveText = '';
  /** The reply streaming now reaches this view as runtime events: its text lines in the file are not needed. */
  private streamingHere = false;
  private n = 0;

  constructor(readonly agent: string) {}

  /** One parsed line of the transcript file (anything: it is checked here). */
  entry(value: unknown): ItemChange[] {
    if (!value || typeof value !== 'object') return [];
    const e = value as { id?: unknown; kind?: unknown; ts?: unknown; message?: unknown; messages?: unknown; event?: unknown };
    const id = typeof e.id === 'string' ? e.id : `line${++this.n}`;
    if (this.seen.has(id)) return [];
    this.seen.add(id);
    const ts = typeof e.ts === 'number' ? e.ts : undefined;
    if (e.kind === 'msg' && e.message && typeof e.message === 'object') {
      const m = e.message as { role?: unknown; content?: unknown };
      return m.role === 'assistant' ? this.assistant(id, ts, m.content) : this.user(id, ts, m.content);
    }
    if (e.kind === 'reset') {
      const msgs = Array.isArray(e.messages) ? e.messages : [];
      const first = msgs[0] as { content?: unknown } | undefined;
      const summary = first ? resultText(first.content) : '';
      return [{ op: 'put', item: { kind: 'notice', key: id, ts, what: 'compaction', level: 'info', text: 'Context compacted: the conversation so far was summarised.', detail: bounded(summary, MAX_TEXT_CHARS) } }];
    }
    if (e.kind === 'event' && e.event && typeof e.event === 'object') return this.event(id, ts, e.event as Record<string, unknown>);
    return [];
  }

  /** A line that is not JSON, or not a transcript entry (`reason`): shown as a note, never as content. */
  badLine(offset: number, reason?: string): ItemChange[] {
    const text = `A damaged line at byte ${offset} of the transcript was skipped.`;
    return [{ op: 'put', item: { kind: 'notice', key: `bad@${offset}`, what: 'skipped', level: 'warning', text, ...(reason ? { detail: bounded(reason, 500) } : {}) } }];
  }

  /** A live runtime event of this builder's agent; null for events that change nothing shown. */
  live(e: RuntimeEvent): ItemChange[] {
    if (!('agent' in e) || e.agent !== this.agent) return [];
    switch (e.type) {
      case 'text_delta':
        this.streamingHere = true;
        return this.stream(e.text, e.attempt);
      case 'transcript':
        return this.entry(e.entry);
      case 'tool_start':
        return this.putTool(e.id, e.tool, e.input, undefined);
      case 'tool':
        return e.id ? this.putTool(e.id, e.tool, e.input, { text: e.result, isError: e.isError }) : [];
      default:
        return [];
    }
  }

  /** Streamed text (a runtime event, or a `text` line another process wrote) grows one item. */
  private stream(text: string, attempt: number): ItemChange[] {
    if (attempt !== this.liveAttempt) {
      this.liveAttempt = attempt;
      this.liveText = '';
    }
    this.liveText += text;
    return [{ op: 'put', item: { kind: 'text', key: LIVE, text: bounded(this.liveText, MAX_TEXT_CHARS), streaming: true } }];
  }

  private assistant(id: string, ts: number | undefined, content: unknown): ItemChange[] {
    const out: ItemChange[] = [];
    this.streamingHere = false;
    // The stored message replaces what was streamed of it.
    if (this.liveAttempt !== -1) {
      out.push({ op: 'remove', key: LIVE });
      this.liveAttempt = -1;
      this.liveText = '';
    }
    blocksOf(content).forEach((b, i) => {
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) {
        out.push({ op: 'put', item: { kind: 'text', key: `${id}:${i}`, ts, text: bounded(b.text, MAX_TEXT_CHARS) } });
      } else if (b.type === 'tool_use' && typeof b.id === 'string') {
        out.push(...this.putTool(b.id, typeof b.name === 'string' ? b.name : '?', b.input, undefined, ts));
      }
    });
    return out;
  }

  private user(id: string, ts: number | undefined, content: unknown): ItemChange[] {
    const out: ItemChange[] = [];
    blocksOf(content).forEach((b, i) => {
      const key = `${id}:${i}`;
      if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        out.push(...this.putTool(b.tool_use_id, undefined, undefined, { text: resultText(b.content), isError: b.is_error === true }, ts));
        return;
      }
      if (b.type !== 'text' || typeof b.text !== 'string' || !b.text.trim()) return;
      const m = MAIL.exec(b.text);
      if (m) {
        const req = /request_id="([^"]*)"/.exec(m[3]!);
        const approve = /approve="(true|false)"/.exec(m[3]!);
        out.push({ op: 'put', item: {
          kind: 'mail_in', key, ts, from: unattr(m[1]!), type: m[2]!, content: bounded(m[4]!, MAX_TEXT_CHARS),
          ...(req ? { requestId: unattr(req[1]!) } : {}), ...(approve ? { approve: approve[1] === 'true' } : {}),
        } });
      } else {
        // The identity line the engine puts first (runtime/prompts.ts identityBlock) is for the model, not the reader.
        const text = b.text.replace(IDENTITY, '');
        if (text.trim()) out.push({ op: 'put', item: { kind: 'prompt', key, ts, text: bounded(text, MAX_TEXT_CHARS) } });
      }
    });
    return out;
  }

  private event(id: string, ts: number | undefined, ev: Record<string, unknown>): ItemChange[] {
    const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    if (ev.type === 'usage') {
      return [{ op: 'put', item: { kind: 'usage', key: id, ts, input: n(ev.input), output: n(ev.output), cacheRead: n(ev.cache_read), cacheWrite: n(ev.cache_write) } }];
    }
    if (ev.type === 'text' && typeof ev.text === 'string') return this.streamingHere ? [] : this.stream(ev.text, n(ev.attempt));
    if (ev.type === 'tool_result' && typeof ev.id === 'string' && typeof ev.text === 'string') {
      // A result this view already has (from a runtime event) is not replaced by the shorter copy.
      if (this.tools.get(ev.id)?.result !== undefined) return [];
      const r = { text: ev.text, isError: ev.is_error === true, chars: n(ev.chars) || ev.text.length };
      return this.putTool(ev.id, typeof ev.tool === 'string' ? ev.tool : undefined, undefined, r, ts);
    }
    if (ev.type === 'hook' && typeof ev.command === 'string') return [{ op: 'put', item: hookItem(id, ts, ev) }];
    if (ev.type === 'notice' && typeof ev.text === 'string') {
      const level = ev.level === 'error' || ev.level === 'warning' ? ev.level : 'info';
      const what = (typeof ev.what === 'string' ? ev.what : 'note') as NoticeWhat;
      return [{ op: 'put', item: { kind: 'notice', key: id, ts, what, level, text: bounded(ev.text, 2000) } }];
    }
    return [];
  }

  private putTool(id: string, name: string | undefined, input: unknown, result: { text: string; isError: boolean; chars?: number } | undefined, ts?: number): ItemChange[] {
    const prev = this.tools.get(id);
    // The round's message bringing a result already shown (from a tool_result line) changes nothing.
    if (result && prev?.result !== undefined && !prev.running && prev.isError === result.isError
      && prev.result === bounded(result.text, MAX_RESULT_CHARS) && (input === undefined || prev.input === inputJson(input))) return [];
    const item: Tool = {
      kind: 'tool', key: id, ts: prev?.ts ?? ts,
      tool: name ?? prev?.tool ?? '(earlier call)',
      input: input !== undefined ? inputJson(input) : prev?.input ?? '{}',
      running: result ? false : prev ? prev.running : true,
    };
    const r = result ? { text: result.text, isError: result.isError } : prev?.result !== undefined ? { text: prev.result, isError: !!prev.isError } : undefined;
    if (r) {
      item.result = result ? bounded(r.text, MAX_RESULT_CHARS) : r.text;
      item.resultChars = result ? result.chars ?? r.text.length : prev?.resultChars;
      item.isError = r.isError;
      item.running = false;
    }
    this.tools.set(id, item);
    // A finished call needs no more merging; keep the map small on long transcripts.
    if (!item.running && this.tools.size > 4096) this.tools.delete(this.tools.keys().next().value!);
    return [{ op: 'put', item }];
  }
}

/** A hook run (docs/hooks.md) as a notice row: event, command, exit code and time; what it said folded below. */
function hookItem(key: string, ts: number | undefined, ev: Record<string, unknown>): TranscriptItem {
  const code = typeof ev.exit_code === 'number' ? ev.exit_code : null;
  const how = ev.timed_out === true ? 'timed out' : code === null ? 'killed' : `exit ${code}`;
  const ms = typeof ev.ms === 'number' ? ev.ms : 0;
  const level = ev.blocked === true ? 'warning' : code === 0 ? 'info' : 'error';
  const output = typeof ev.output === 'string' ? ev.output : '';
  return {
    kind: 'notice', key, ts, what: 'hook', level,
    text: bounded(`${String(ev.event)} hook \`${ev.command as string}\`: ${how} in ${ms} ms${ev.blocked === true ? ' (blocked)' : ''}`, 2000),
    ...(output ? { detail: `\`\`\`\n${bounded(output, 4000).replace(/```/g, "'''")}\n\`\`\`` } : {}),
  };
}
