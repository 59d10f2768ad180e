// Which model names a teammate may be given (agent definitions, spawn_teammate `model`,
// the Spawn Teammate command, `/spawn --model`). Claude Code's aliases are accepted so its
// `.claude/agents/*.md` files work unchanged (docs/file-formats.md, "Agent definitions").
// Any other sane id is accepted with a warning: behind a proxy (ANTHROPIC_BASE_URL) models
// are named `openrouter/anthropic/claude-…`, Bedrock ARNs or custom names we cannot know.

import { parseModelId } from '../model/provider-id';

/** Families we can price (src/core/runtime/pricing.ts) and so call by an alias. */
const FAMILY_RE = /^claude-(?:[a-z0-9]+-)*(opus|sonnet|haiku)(?:-[a-z0-9.]+)*$/;

/** What a model id may look like: no spaces or control characters, no shell or path tricks (ARNs keep `:` and `/`, Vertex `@`). */
const SANE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;
const MAX_ID_CHARS = 200;

/** Used when the alias names a family other than the team's model's. */
const ALIAS_DEFAULTS: Record<'opus' | 'sonnet' | 'haiku', string> = {
  opus: 'claude-opus-4-5',
  sonnet: 'claude-sonnet-4-5',
  haiku: 'claude-haiku-4-5',
};

/** `warning`: an id we do not know, used as given (say so to whoever chose it). */
export type ModelCheck = { ok: true; model: string | undefined; warning?: string } | { ok: false; error: string };

/**
 * Whether `model` needs no warning: an id of another provider (`openai:`, `vscode:`, checked
 * when the agent is spawned), or a Claude model id of a family we know (and can price).
 */
export function knownModel(model: string): boolean {
  const p = parseModelId(model);
  return p.ok && (p.provider !== 'anthropic' || FAMILY_RE.test(p.model));
}

/**
 * Resolves a requested model against the team's default: `inherit` (or nothing) keeps the
 * team's model; `opus` / `sonnet` / `haiku` pick the team's model when it is of that
 * family, else a current one; a Claude model id of a known family is taken as it is; any
 * other sane id is taken with a warning (a proxy's or a custom name); the rest is an error.
 */
export function resolveModel(requested: string | null | undefined, teamModel: string): ModelCheck {
  const m = requested?.trim();
  if (!m || m === 'inherit') return { ok: true, model: undefined };
  if (m === 'opus' || m === 'sonnet' || m === 'haiku') {
    return { ok: true, model: FAMILY_RE.exec(teamModel)?.[1] === m ? teamModel : ALIAS_DEFAULTS[m] };
  }
  // A provider prefix (docs/models.md): an unknown one is refused here, where the model is chosen.
  const p = parseModelId(m);
  if (!p.ok) return { ok: false, error: p.error };
  const sane = m.length <= MAX_ID_CHARS && SANE_ID_RE.test(m) && !m.includes('..');
  if (sane && knownModel(m)) return { ok: true, model: m };
  if (sane) return { ok: true, model: m, warning: unknownModelWarning(m) };
  return { ok: false, error: `bad model id ${JSON.stringify(m.slice(0, 80))}: use a model id (letters, digits and . _ - : / @ +, up to ${MAX_ID_CHARS} characters), or opus, sonnet, haiku or inherit` };
}

/** Said wherever an unknown id is chosen: it is not refused, but a typo would only show at the first call. */
export function unknownModelWarning(m: string): string {
  return `model "${m.slice(0, 80)}" is not a Claude model id we know: it is sent to the API as given (right for a proxy or a custom name; a typo fails at the first call), and its price is unknown`;
}
