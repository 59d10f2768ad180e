// Compaction: before an agent's context overflows, its conversation is summarised by the
// model and replaced by one message that re-states who it is, what it was doing, its open
// tasks and its pending requests — so identity and obligations survive the cut. What the
// model has not answered yet (the last user turn: mail just delivered, tool results) is not
// only summarised: it follows the summary as it was, cut to size with a note, so mail that
// arrived in the round that triggered compaction still reaches the agent as mail.
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelClient, ModelMessage, SendResult } from '../model';
import type { Team } from '../team/team';
import { cutMiddle, fitAll, mailCutNote } from './context-cut';
import { compactedPrompt, type Identity } from './prompts';

/**
 * Rough token estimate, good enough to decide when to compact: 4 ASCII characters a token,
 * and a token for every other character (CJK text, emoji and the like are about one each).
 */
export function estimateTokens(messages: ModelMessage[], system = ''): number {
  const text = JSON.stringify(messages) + system;
  const wide = text.match(/[^\x00-\x7f]/g)?.length ?? 0;
  return Math.ceil((text.length - wide) / 4 + wide);
}

/**
 * When to compact: at the setting, or sooner for a model whose context window is smaller
 * (a VS Code model says its maxInputTokens: docs/models.md), leaving a fifth for the reply
 * and the estimate's error.
 */
export function compactAt(setting: number, contextWindow: number | undefined): number {
  return contextWindow && contextWindow > 0 ? Math.min(setting, Math.floor(contextWindow * 0.8)) : setting;
}

/** What the summariser is given at most, in characters. */
const SUMMARY_INPUT_CHARS = 200_000;

type AnyBlock = { type: string; text?: string; name?: string; id?: string; input?: unknown; content?: unknown; tool_use_id?: string };

const blocksOf = (m: ModelMessage): AnyBlock[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as AnyBlock[]));

function resultText(b: AnyBlock): string {
  return typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? '');
}

/**
 * The conversation as the summariser reads it: every message keeps a fair share of the
 * budget (a 500 KB reply is cut, the task given at the start is not dropped for it).
 */
export function summaryInput(messages: ModelMessage[], budget = SUMMARY_INPUT_CHARS): string {
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of blocksOf(m)) {
      if (b.type === 'text') parts.push(`${m.role}: ${b.text}`);
      else if (b.type === 'tool_use') parts.push(`${m.role} called ${b.name} ${JSON.stringify(b.input).slice(0, 500)}`);
      else if (b.type === 'tool_result') parts.push(`result: ${resultText(b).slice(0, 1000)}`);
    }
  }
  return fitAll(parts, budget, (cut) => `[… ${cut} characters cut …]`).join('\n');
}

/**
 * The last user turn, which the model has not answered, as text blocks that can follow a
 * summary: mail as it was, tool results named after their call; each cut to `maxChars`.
 */
export function carryOver(messages: ModelMessage[], agent: string, maxChars: number): Anthropic.TextBlockParam[] {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user') return [];
  const calls = new Map<string, string>();
  const prev = messages[messages.length - 2];
  if (prev?.role === 'assistant') for (const b of blocksOf(prev)) if (b.type === 'tool_use' && b.id) calls.set(b.id, b.name ?? 'a tool');
  const out: Anthropic.TextBlockParam[] = [];
  for (const b of blocksOf(last)) {
    if (b.type === 'text' && b.text) {
      const note = b.text.startsWith('<team-mail') ? mailCutNote(agent) : (cut: number) => `[… ${cut} characters cut to fit your context …]`;
      out.push({ type: 'text', text: cutMiddle(b.text, maxChars, note) });
    } else if (b.type === 'tool_result') {
      const text = `Result of your ${calls.get(b.tool_use_id ?? '') ?? 'tool'} call, which came back as the conversation was compacted:\n${resultText(b)}`;
      out.push({ type: 'text', text: cutMiddle(text, maxChars, (cut) => `[… ${cut} characters of this result cut …]`) });
    }
  }
  return out;
}

export interface CompactOptions {
  /** The most characters one carried-over message keeps (see context-cut maxMessageChars). */
  maxMessageChars: number;
  /** What the summariser is given at most, in characters (less for a small context window). */
  summaryChars?: number;
  recordUsage?: (r: SendResult) => Promise<void>;
}

export async function compact(
  model: ModelClient, id: Identity, messages: ModelMessage[], team: Team, signal: AbortSignal, opts: CompactOptions,
): Promise<ModelMessage[]> {
  // The unanswered last user turn follows the summary as it was; the rest is summarised.
  const pending = messages[messages.length - 1]?.role === 'user' ? 1 : 0;
  const history = messages.slice(0, messages.length - pending);
  let summary = '(nothing before this)';
  if (history.length) {
    const r = await model.send({
      system: `You are ${id.name}, summarising your own earlier work so you can continue it after a context reset.`,
      messages: [{ role: 'user', content: `Summarise this work log: decisions, files touched, what is done, what is next.\n\n${summaryInput(history, opts.summaryChars)}` }],
      signal,
    });
    await opts.recordUsage?.(r);
    summary = r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  }
  const tasks = await team.tasks.select((t) => t.owner === id.name && t.status !== 'completed');
  const requests = [
    ...(await team.requests.list({ status: 'pending', subject: id.name })),
    ...(id.name === 'lead' ? await team.requests.list({ status: 'pending', to: 'lead' }) : []),
  ];
  const carried = carryOver(messages, id.name, opts.maxMessageChars);
  const head = compactedPrompt(id, summary, tasks, requests);
  if (!carried.length) return [{ role: 'user', content: head }];
  return [{ role: 'user', content: [{ type: 'text', text: `${head}\nWhat arrived since, not yet answered:` }, ...carried] }];
}
