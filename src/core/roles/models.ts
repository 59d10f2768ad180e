// Which model names a teammate may be given (agent definitions, spawn_teammate `model`,
// the Spawn Teammate command, `/spawn --model`). Claude Code's aliases are accepted so its
// `.claude/agents/*.md` files work unchanged (docs/file-formats.md, "Agent definitions").

/** Families we can price (src/core/runtime/pricing.ts) and so call by an alias. */
const FAMILY_RE = /^claude-(?:[a-z0-9]+-)*(opus|sonnet|haiku)(?:-[a-z0-9.]+)*$/;

/** Used when the alias names a family other than the team's model's. */
const ALIAS_DEFAULTS: Record<'opus' | 'sonnet' | 'haiku', string> = {
  opus: 'claude-opus-4-5',
  sonnet: 'claude-sonnet-4-5',
  haiku: 'claude-haiku-4-5',
};

export type ModelCheck = { ok: true; model: string | undefined } | { ok: false; error: string };

/**
 * Resolves a requested model against the team's default: `inherit` (or nothing) keeps the
 * team's model; `opus` / `sonnet` / `haiku` pick the team's model when it is of that
 * family, else a current one; a full id must be a Claude model id of a known family.
 */
export function resolveModel(requested: string | null | undefined, teamModel: string): ModelCheck {
  const m = requested?.trim();
  if (!m || m === 'inherit') return { ok: true, model: undefined };
  if (m === 'opus' || m === 'sonnet' || m === 'haiku') {
    return { ok: true, model: FAMILY_RE.exec(teamModel)?.[1] === m ? teamModel : ALIAS_DEFAULTS[m] };
  }
  if (FAMILY_RE.test(m)) return { ok: true, model: m };
  return { ok: false, error: `unknown model "${m.slice(0, 80)}": use a Claude model id (claude-…-opus/sonnet/haiku…), or opus, sonnet, haiku or inherit` };
}
