// Compaction: before an agent's context overflows, its conversation is summarised by the
// model and replaced by one message that re-states who it is, what it was doing, its open
// tasks and its pending requests — so identity and obligations survive the cut.
import type { ModelClient, ModelMessage } from '../model';
import type { Team } from '../team/team';
import { compactedPrompt, type Identity } from './prompts';

/** Rough token estimate (4 characters a token) — good enough to decide when to compact. */
export function estimateTokens(messages: ModelMessage[], system = ''): number {
  return Math.ceil((JSON.stringify(messages).length + system.length) / 4);
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
): Promise<ModelMessage[]> {
  const r = await model.send({
    system: `You are ${id.name}, summarising your own earlier work so you can continue it after a context reset.`,
    messages: [{ role: 'user', content: `Summarise this work log: decisions, files touched, what is done, what is next.\n\n${asText(messages)}` }],
    signal,
  });
  const summary = r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  const tasks = (await team.tasks.list()).filter((t) => t.owner === id.name && t.status !== 'completed');
  const requests = [
    ...(await team.requests.list({ status: 'pending', subject: id.name })),
    ...(id.name === 'lead' ? await team.requests.list({ status: 'pending', to: 'lead' }) : []),
  ];
  return [{ role: 'user', content: compactedPrompt(id, summary, tasks, requests) }];
}
