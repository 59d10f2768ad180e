// The `agent-teams` language model provider (docs/models.md, "Models for the Chat view"): the
// models the user's own keys reach — Anthropic's with an Anthropic key (the team's model and
// the opus / sonnet / haiku of its time), the team's `openai:` model with an OpenAI key —
// offered to VS Code, so the Chat view and `@team` work with no other AI extension. A request
// is converted to the Messages API's shapes and sent by core's model client (retries and
// stalls included); text streams back as it arrives, tool calls when the answer ends.
// `vscode:` models are never offered back to VS Code (they are VS Code's already).
import * as vscode from 'vscode';
import { providerOf, resolveModel } from '../../core/session';
import type { ModelFactory } from '../../core/session';
import { readBaseUrl, readOpenAIBaseUrl } from '../host/settings';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };
type Message = { role: 'user' | 'assistant'; content: Block[] };

/** What the provider reads: the team's model, which keys exist, and a client factory over them. */
export interface ModelProviderDeps {
  teamModel(): string;
  hasKey(provider: 'anthropic' | 'openai'): Promise<boolean>;
  /** Core's model factory with the keys as they are now (loads the SDKs on first use). */
  factory(): Promise<ModelFactory>;
  log: vscode.LogOutputChannel;
}

const MAX_INPUT = 200_000;
const MAX_OUTPUT = 8192;

/** The model ids the keys reach, the team's first. Pure: for the unit test. */
export function reachableModels(teamModel: string, keys: { anthropic: boolean; openai: boolean }): string[] {
  const ids: string[] = [];
  const provider = providerOf(teamModel);
  if ((provider === 'anthropic' && keys.anthropic) || (provider === 'openai' && keys.openai)) ids.push(teamModel);
  if (keys.anthropic) {
    for (const alias of ['sonnet', 'opus', 'haiku']) {
      const r = resolveModel(alias, provider === 'anthropic' ? teamModel : '');
      if (r.ok && r.model && !ids.includes(r.model)) ids.push(r.model);
    }
  }
  return ids;
}

function info(id: string, teamModel: string): vscode.LanguageModelChatInformation {
  const provider = providerOf(id);
  const name = id.replace(/^(anthropic|openai):/, '');
  return {
    id, name, family: name, version: name,
    detail: id === teamModel ? 'Agent Teams · the team\'s model' : 'Agent Teams',
    tooltip: `${name} through ${provider === 'openai' ? 'your OpenAI-compatible endpoint' : 'the Anthropic API'}, with your own key (Agent Teams)`,
    maxInputTokens: MAX_INPUT, maxOutputTokens: MAX_OUTPUT,
    capabilities: { toolCalling: true, imageInput: false },
  };
}

function textOf(parts: readonly unknown[]): string {
  return parts.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** VS Code's request messages as Messages API turns: system text apart, same-role turns merged, tool results in the user turn. */
export function toMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): { system: string; messages: Message[] } {
  const system: string[] = [];
  const out: Message[] = [];
  for (const m of messages) {
    const blocks: Block[] = [];
    for (const p of m.content) {
      if (p instanceof vscode.LanguageModelTextPart) { if (p.value) blocks.push({ type: 'text', text: p.value }); }
      else if (p instanceof vscode.LanguageModelToolCallPart) blocks.push({ type: 'tool_use', id: p.callId, name: p.name, input: p.input ?? {} });
      else if (p instanceof vscode.LanguageModelToolResultPart) blocks.push({ type: 'tool_result', tool_use_id: p.callId, content: textOf(p.content) });
    }
    const role = m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : m.role === vscode.LanguageModelChatMessageRole.User ? 'user' : 'system';
    if (role === 'system') {
      system.push(blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));
      continue;
    }
    if (!blocks.length) continue;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // The API wants the conversation to open with the user.
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: '(continued)' }] });
  return { system: system.filter(Boolean).join('\n\n'), messages: out };
}

export class TeamModelProvider implements vscode.LanguageModelChatProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(private readonly d: ModelProviderDeps) {}

  /** Keys or the team's model changed: VS Code asks for the list again. */
  refresh(): void {
    this.changed.fire();
  }

  async provideLanguageModelChatInformation(): Promise<vscode.LanguageModelChatInformation[]> {
    const team = this.d.teamModel();
    const [anthropic, openai] = await Promise.all([this.d.hasKey('anthropic'), this.d.hasKey('openai')]);
    return reachableModels(team, { anthropic, openai }).map((id) => info(id, team));
  }

  async provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      const client = (await this.d.factory())(model.id, () => undefined);
      const { system, messages: turns } = toMessages(messages);
      const tools = (options.tools ?? []).map((t) => ({
        name: t.name, description: t.description,
        input_schema: (t.inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' },
      }));
      const res = await client.send({
        system: system || undefined,
        tools: tools.length ? tools : undefined,
        messages: turns as never,
        signal: abort.signal,
        onText: (delta) => progress.report(new vscode.LanguageModelTextPart(delta)),
      });
      for (const b of res.content) {
        if (b.type === 'tool_use') progress.report(new vscode.LanguageModelToolCallPart(b.id, b.name, (b.input ?? {}) as object));
      }
    } catch (err) {
      this.d.log.warn(`model ${model.id} for the Chat view: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    } finally {
      sub.dispose();
    }
  }

  /** An estimate (four characters a token): the Chat view uses it to budget, not to bill. */
  async provideTokenCount(_model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const s = typeof text === 'string' ? text : text.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p) ?? '')).join('');
    return Math.ceil(s.length / 4);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Core's model factory over the keys stored now, else the environment's (docs/models.md, "Keys and endpoints"). */
export async function keyedModelFactory(anthropicKey: string | undefined, openaiKey: string | undefined): Promise<ModelFactory> {
  const { createModelFactory, resolveModelConfig, resolveOpenAIConfig } = await import('../../core/session/models');
  return createModelFactory({
    anthropic: () => resolveModelConfig({ settingBaseUrl: readBaseUrl(), envBaseUrl: process.env.ANTHROPIC_BASE_URL, secretKey: anthropicKey, envKey: process.env.ANTHROPIC_API_KEY }),
    openai: () => resolveOpenAIConfig({ settingBaseUrl: readOpenAIBaseUrl(), envBaseUrl: process.env.OPENAI_BASE_URL, secretKey: openaiKey, envKey: process.env.OPENAI_API_KEY }),
  });
}
