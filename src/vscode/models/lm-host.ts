// The `vscode:` provider's VS Code half (docs/models.md): core's LmHost over the Language Model
// API. Models come from vscode.lm.selectChatModels; a request goes as LanguageModelChatMessage
// parts (tool calls as LanguageModelToolCallPart, results as LanguageModelToolResultPart in the
// user turn after them) with our tools as LanguageModelChatTool; VS Code asks the user's consent
// the first time, as it always does. Its failures are sorted here into core's failure kinds.
import * as vscode from 'vscode';
import type { ChatToolDef, ChatTurn, Failure, LmChatModel, LmHost } from '../../core/session/models';

const JUSTIFICATION = 'Agent Teams runs the agents of your team on this model: their conversation and tool calls are sent to it.';

/** Neutral chat turns as VS Code messages. VS Code has no system role: the system prompt opens as the user's. */
export function toLmMessages(turns: readonly ChatTurn[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let results: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (results.length) out.push(vscode.LanguageModelChatMessage.User(results));
    results = [];
  };
  for (const t of turns) {
    if (t.role === 'tool') {
      results.push(new vscode.LanguageModelToolResultPart(t.callId, [new vscode.LanguageModelTextPart(t.isError ? `Error: ${t.text}` : t.text)]));
      continue;
    }
    flush();
    if (t.role === 'assistant') {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = t.text ? [new vscode.LanguageModelTextPart(t.text)] : [];
      for (const c of t.calls) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, (c.input ?? {}) as object));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    } else {
      out.push(vscode.LanguageModelChatMessage.User(t.text));
    }
  }
  flush();
  return out;
}

/** Whether the model says it calls tools (VS Code exposes it on the object, not in the stable typings). */
function toolCalling(m: vscode.LanguageModelChat): boolean | undefined {
  const caps = (m as unknown as { capabilities?: { supportsToolCalling?: unknown; toolCalling?: unknown } }).capabilities;
  const v = caps?.supportsToolCalling ?? caps?.toolCalling;
  return v === undefined ? undefined : !!v;
}

function wrap(m: vscode.LanguageModelChat): LmChatModel {
  return {
    id: m.id, vendor: m.vendor, family: m.family, name: m.name, maxInputTokens: m.maxInputTokens, toolCalling: toolCalling(m),
    async chat(turns: ChatTurn[], tools: ChatToolDef[], signal: AbortSignal, onText: (d: string) => void) {
      const cts = new vscode.CancellationTokenSource();
      const cancel = () => cts.cancel();
      signal.addEventListener('abort', cancel, { once: true });
      try {
        const res = await m.sendRequest(toLmMessages(turns), {
          justification: JUSTIFICATION,
          tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
        }, cts.token);
        let text = '';
        const calls: Array<{ id: string; name: string; input: unknown }> = [];
        for await (const part of res.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            text += part.value;
            onText(part.value);
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            calls.push({ id: part.callId, name: part.name, input: part.input });
          }
        }
        return { text, calls };
      } finally {
        signal.removeEventListener('abort', cancel);
        cts.dispose();
      }
    },
  };
}

/** VS Code's reasons a request failed, as core's kinds (consent declined is the user's answer, never retried). */
function classify(e: unknown): Failure | undefined {
  if (!(e instanceof vscode.LanguageModelError)) return undefined;
  const detail = e.message || e.code;
  switch (e.code) {
    case vscode.LanguageModelError.NoPermissions.name:
      return { kind: 'auth', retryable: false, reason: 'not allowed', message: `VS Code did not allow Agent Teams to use this model (${detail}): the consent was declined or withdrawn. Ask again to be asked again, or allow it under Manage Language Model Access.` };
    case vscode.LanguageModelError.Blocked.name:
      return { kind: 'rate_limit', retryable: true, reason: 'quota exceeded', message: `the model's quota is exceeded: ${detail}` };
    case vscode.LanguageModelError.NotFound.name:
      return { kind: 'model', retryable: false, reason: 'model gone', message: `the VS Code language model is no longer available: ${detail}` };
    default:
      return { kind: 'request', retryable: false, reason: 'model error', message: `the VS Code language model failed: ${detail}` };
  }
}

export function createLmHost(): LmHost {
  return {
    async select(sel) {
      // Older hosts, or a host without the API: no models rather than a crash.
      if (!vscode.lm?.selectChatModels) return [];
      const selector: vscode.LanguageModelChatSelector = {};
      if (sel.vendor) selector.vendor = sel.vendor;
      if (sel.family) selector.family = sel.family;
      return (await vscode.lm.selectChatModels(selector)).map(wrap);
    },
    classify,
  };
}
