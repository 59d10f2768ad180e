// Reading what the agents sent the fake model (the newest user turn, the whole conversation),
// and gates that hold a fake answer until a test has seen what it wants to check.
import type { RecordedRequest } from '../../fake-api';

export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => { open = r; });
  return { promise, open };
}

// any: the request body is arbitrary client JSON.
function blockText(b: any): string {
  if (typeof b === 'string') return b;
  if (b?.type === 'text') return b.text as string;
  if (b?.type === 'tool_result') return Array.isArray(b.content) ? b.content.map(blockText).join('\n') : String(b.content ?? '');
  return '';
}

/** The text of the newest user turn: what has happened since the agent last spoke. */
export function newest(r: RecordedRequest): string {
  const last = (r.body?.messages ?? []).at(-1) as { role?: string; content?: unknown } | undefined;
  if (last?.role !== 'user') return '';
  return Array.isArray(last.content) ? last.content.map(blockText).join('\n') : blockText(last.content);
}

export function allText(r: RecordedRequest): string {
  return (r.body?.messages ?? []).map((m: { content: unknown }) =>
    (Array.isArray(m.content) ? m.content.map(blockText).join('\n') : blockText(m.content))).join('\n');
}
