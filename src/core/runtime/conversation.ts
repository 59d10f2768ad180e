// The conversation's shape rules, apart from the loop that keeps it (agent.ts): the API's
// "prompt too long" answer, and one message per role in a row.
import { ModelError, type ModelMessage } from '../model';

type Block = Exclude<ModelMessage['content'], string>[number];

/** The API's 400 for a conversation over the context window. */
export function promptTooLong(err: unknown): boolean {
  return err instanceof ModelError && err.status === 400 && /prompt is too long|too many tokens|context (window|length)/i.test(err.message);
}

/** Merges consecutive messages of one role (a cancelled turn leaves two user messages). */
export function mergeConsecutive(messages: ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  const blocks = (c: ModelMessage['content']): Block[] => (typeof c === 'string' ? [{ type: 'text', text: c }] : c);
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) out[out.length - 1] = { ...prev, content: [...blocks(prev.content), ...blocks(m.content)] } as ModelMessage;
    else out.push(m);
  }
  return out;
}
