// Where prompt-cache breakpoints go. The API caches prefixes in the order tools → system →
// messages and allows four breakpoints. We mark: the last tool, the system prompt, the last
// block of the previous user turn (exactly where the previous request wrote, so the next
// request reads it even when a round added many blocks) and the last block of the request.
// Breakpoints already on the inputs are dropped so the count never exceeds four.
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelMessage, ModelTool, SystemPrompt } from './types';

const EPHEMERAL = { type: 'ephemeral' } as const;

type Block = Anthropic.ContentBlockParam;

export interface CachedPrompt {
  system?: SystemPrompt;
  tools?: ModelTool[];
  messages: ModelMessage[];
}

function withoutMark<T extends object>(b: T): T {
  if (!('cache_control' in b)) return b;
  const { cache_control: _dropped, ...rest } = b as T & { cache_control?: unknown };
  return rest as T;
}

/** Blocks that may not carry cache_control (the API rejects it on thinking blocks and empty text). */
function markable(b: Block): boolean {
  if (b.type === 'thinking' || b.type === 'redacted_thinking') return false;
  return !(b.type === 'text' && b.text === '');
}

function mark<T extends object>(b: T): T {
  return { ...b, cache_control: EPHEMERAL };
}

function cleanMessage(m: ModelMessage): ModelMessage {
  if (typeof m.content === 'string') return m;
  return { ...m, content: (m.content as Block[]).map(withoutMark) } as ModelMessage;
}

/** A copy of `m` with its last markable block marked (a string content becomes a text block). */
function markMessage(m: ModelMessage): ModelMessage {
  if (typeof m.content === 'string') {
    return m.content === '' ? m : ({ ...m, content: [mark({ type: 'text', text: m.content })] } as ModelMessage);
  }
  const blocks = [...(m.content as Block[])];
  for (let i = blocks.length - 1; i >= 0; i--) {
    if (markable(blocks[i])) { blocks[i] = mark(blocks[i]); break; }
  }
  return { ...m, content: blocks } as ModelMessage;
}

/** The prompt with cache breakpoints placed; inputs are never mutated. */
export function withCacheBreakpoints(system: SystemPrompt | undefined, tools: ModelTool[] | undefined, messages: ModelMessage[]): CachedPrompt {
  const outTools = tools?.map((t, i) => (i === tools.length - 1 ? mark(withoutMark(t)) : withoutMark(t)));

  let outSystem: SystemPrompt | undefined = system;
  if (typeof system === 'string') outSystem = system ? [mark({ type: 'text' as const, text: system })] : system;
  else if (system?.length) outSystem = system.map((b, i) => (i === system.length - 1 ? mark(withoutMark(b)) : withoutMark(b)));

  const outMessages = messages.map(cleanMessage);
  const last = outMessages.length - 1;
  if (last >= 0) {
    outMessages[last] = markMessage(outMessages[last]);
    for (let i = last - 1; i >= 0; i--) {
      if (outMessages[i].role === 'user') { outMessages[i] = markMessage(outMessages[i]); break; }
    }
  }
  return { system: outSystem, tools: outTools, messages: outMessages };
}
