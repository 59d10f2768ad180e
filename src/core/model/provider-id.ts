// Which provider a model id names (docs/models.md): `anthropic:<id>` (the default: a bare id is
// Anthropic's), `openai:<id>` (an OpenAI-compatible Chat Completions endpoint) and
// `vscode:<vendor>/<family>` (VS Code's Language Model API). Pure, so both hosts and the spawn
// rules judge an id the same way before any client exists.

export type ProviderName = 'anthropic' | 'openai' | 'vscode';

export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai', 'vscode'];

export interface ProviderModel {
  provider: ProviderName;
  /** The id the provider is sent (no prefix); for `vscode:` the `<vendor>/<family>` selector. */
  model: string;
}

export type ProviderParse = ({ ok: true } & ProviderModel) | { ok: false; error: string };

/**
 * What counts as a prefix: a lowercase word and a colon at the start. Ids that merely contain a
 * colon stay bare Anthropic ids: Bedrock's `anthropic.claude-…-v1:0` (dots before the colon) and
 * ARNs (`arn:aws:bedrock:…`).
 */
const PREFIX_RE = /^([a-z][a-z0-9_-]*):(.*)$/s;

export function parseModelId(id: string): ProviderParse {
  const m = PREFIX_RE.exec(id.trim());
  if (!m || m[1] === 'arn') return { ok: true, provider: 'anthropic', model: id.trim() };
  const [, prefix, rest] = m as unknown as [string, string, string];
  if (!(PROVIDERS as readonly string[]).includes(prefix)) {
    return { ok: false, error: `unknown model provider "${prefix}:" in "${id.slice(0, 80)}": use anthropic:<id>, openai:<id> or vscode:<vendor>/<family> (docs/models.md)` };
  }
  const model = rest.trim();
  if (!model) return { ok: false, error: `"${id.slice(0, 80)}" names the provider ${prefix} but no model` };
  if (prefix === 'vscode' && !/^[^/\s]+(\/[^/\s]+)?$/.test(model)) {
    return { ok: false, error: `"${id.slice(0, 80)}": a VS Code model is named vscode:<vendor>/<family>, e.g. vscode:copilot/gpt-4o` };
  }
  return { ok: true, provider: prefix as ProviderName, model };
}

/** The provider of an id, "anthropic" for one that does not parse (its error is reported where it is chosen). */
export function providerOf(id: string | undefined): ProviderName {
  const p = parseModelId(id ?? '');
  return p.ok ? p.provider : 'anthropic';
}

/** `vscode:<vendor>/<family>` as a selector; a bare `vscode:<family>` matches any vendor. */
export function vscodeSelector(model: string): { vendor?: string; family: string } {
  const slash = model.indexOf('/');
  return slash < 0 ? { family: model } : { vendor: model.slice(0, slash), family: model.slice(slash + 1) };
}
