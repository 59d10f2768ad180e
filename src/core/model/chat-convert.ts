// The agent loop speaks Anthropic's message shapes (what it builds, persists and compacts); the
// other providers speak chat turns with tool calls. This converts at the provider edge, one
// way: the loop's conversation → neutral chat turns, which the OpenAI client and the VS Code
// host map onto their own types (docs/models.md). Pure, so it is unit-tested without a server.
import type { ModelMessage, ModelTool, SystemPrompt } from './types';

export interface ChatToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type ChatTurn =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: ChatToolCall[] }
  /** One tool's result; always right after the assistant turn that made the call. */
  | { role: 'tool'; callId: string; name: string; text: string; isError: boolean };

export interface ChatToolDef {
  name: string;
  description: string;
  /** JSON Schema of the input. */
  parameters: Record<string, unknown>;
}

type AnyBlock = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean };

export function systemText(system: SystemPrompt | undefined): string {
  if (!system) return '';
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n\n');
}

/** A tool result's content, which may be a string or blocks (text kept, anything else noted). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: AnyBlock) => (b.type === 'text' ? b.text ?? '' : `[${b.type} omitted]`)).join('\n');
}

export function toChatTurns(system: SystemPrompt | undefined, messages: readonly ModelMessage[]): ChatTurn[] {
  const out: ChatTurn[] = [];
  const sys = systemText(system);
  if (sys) out.push({ role: 'system', text: sys });
  // Tool results name their call's tool (VS Code and some servers want it).
  const names = new Map<string, string>();
  for (const m of messages) {
    const blocks: AnyBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as AnyBlock[]);
    const text = blocks.filter((b) => b.type === 'text' && b.text).map((b) => b.text).join('\n\n');
    if (m.role === 'assistant') {
      const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id ?? '', name: b.name ?? '', input: b.input ?? {} }));
      for (const c of calls) names.set(c.id, c.name);
      if (text || calls.length) out.push({ role: 'assistant', text, calls });
      continue;
    }
    // A user turn: tool results first (they must follow the call), then the words and mail.
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const id = b.tool_use_id ?? '';
      out.push({ role: 'tool', callId: id, name: names.get(id) ?? '', text: resultText(b.content), isError: !!b.is_error });
    }
    if (text) out.push({ role: 'user', text });
  }
  return out;
}

export function toChatTools(tools: readonly ModelTool[] | undefined): ChatToolDef[] {
  return (tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '', parameters: t.input_schema as Record<string, unknown> }));
}

/**
 * A tool call's arguments as the model streamed them (JSON text). A call whose text does not
 * parse is handed to the tool as given, where the input check says what is wrong with it.
 */
export function parseArguments(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    return { _unparsed_arguments: json };
  }
}
