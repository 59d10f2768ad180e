// What the lead hears when a teammate's work phase ends (docs/file-formats.md, "Messages"):
// the teammate's final words as a `result` message, unless it already messaged the lead in
// that phase. Pure functions over the conversation.
import type { ModelMessage } from '../model';

type Block = { type: string; name?: string; input?: unknown; text?: string };

const blocksOf = (m: ModelMessage): Block[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[]));

/** Whether the assistant turns from index `from` on sent the lead a message. */
export function reportedToLead(messages: readonly ModelMessage[], from: number): boolean {
  return messages.slice(from).some((m) => m.role === 'assistant' && blocksOf(m).some(
    (b) => b.type === 'tool_use' && b.name === 'send_message' && (b.input as { to?: unknown } | undefined)?.to === 'lead',
  ));
}

/** The last thing the teammate said in words during the phase, or null. */
export function finalWords(messages: readonly ModelMessage[], from: number): string | null {
  for (const m of messages.slice(from).reverse()) {
    if (m.role !== 'assistant') continue;
    const text = blocksOf(m).filter((b) => b.type === 'text' && b.text?.trim()).map((b) => b.text!.trim()).join('\n\n');
    if (text) return text;
  }
  return null;
}

/** The teammate names a reply's spawn_teammate calls start (a task may name them as owner first). */
export function spawnedNames(blocks: readonly Block[]): Set<string> {
  return new Set(blocks.flatMap((b) => {
    const name = b.type === 'tool_use' && b.name === 'spawn_teammate' ? (b.input as { name?: unknown } | null)?.name : undefined;
    return typeof name === 'string' ? [name] : [];
  }));
}

/**
 * What the lead reads when a teammate shut down after idling: which tasks it held went back
 * to the board (none is said as such), and how to have it back.
 */
export function idledOutWords(name: string, seconds: number, released: readonly number[]): string {
  const tasks = released.length
    ? ` Its in-progress ${released.length === 1 ? 'task' : 'tasks'} ${released.map((id) => `#${id}`).join(', ')} went back to the board, unowned.`
    : ' It held no task in progress.';
  const how = released.length ? 'To have it finish, spawn_teammate' : 'To give it more work, spawn_teammate';
  const or = released.length ? ', or give the task to another teammate (task_update owner)' : '';
  return `${name} shut down after ${seconds} s idle.${tasks} ${how} with name "${name}" restarts it with its earlier conversation${or}.`;
}
