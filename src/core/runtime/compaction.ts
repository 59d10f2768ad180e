// Compaction: before an agent's context overflows, its conversation is summarised by the
// model and replaced by one message that re-states who it is, what it was doing, its open
// tasks and its pending requests — so identity and obligations survive the cut.
import type { ModelClient, ModelMessage, SendResult } from '../model';
import type { Team } from '../team/team';
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

function asText(messages: ModelMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks as { type: string; text?: string; name?: string; input?: unknown; content?: unknown }[]) {
      if (b.type === 'text') parts.push(`${m.role}: ${b.text}`);
      else if (b.type === 'tool_use') parts.push(`${m.role} called ${b.name} ${JSON.stringify(b.input).slice(0, 500)}`);
      else if (b.type === 'tool_result') parts.push(`result: ${String(typeof b.content === 'string' ? b.content : JSON.stringify(b.content)).slice(0, 1000)}`);
    }
  }
  return parts.join('\n').slice(-200_000);
}

export async function compact(
  model: ModelClient, id: Identity, messages: ModelMessage[], team: Team, signal: AbortSignal,
  recordUsage: (r: SendResult) => Promise<void> = async () => undefined,
): Promise<ModelMessage[]> {
  const r = await model.send({
    system: `You are ${id.name}, summarising your own earlier work so you can continue it after a context reset.`,
    messages: [{ role: 'user', content: `Summarise this work log: decisions, files touched, what is done, what is next.\n\n${asText(messages)}` }],
    signal,
  });
  await recordUsage(r);
  const summary = r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  const tasks = (await team.tasks.list()).filter((t) => t.owner === id.name && t.status !== 'completed');
  const requests = [
    ...(await team.requests.list({ status: 'pending', subject: id.name })),
    ...(id.name === 'lead' ? await team.requests.list({ status: 'pending', to: 'lead' }) : []),
  ];
  return [{ role: 'user', content: compactedPrompt(id, summary, tasks, requests) }];
}
