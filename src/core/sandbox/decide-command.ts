// Whether a bash call runs, is asked about, or is refused (docs/security.md, "Asking less"):
// the permission rules decide as always (docs/permissions.md); inside the sandbox a command
// no rule decides runs unasked (agentTeams.sandbox.autoAllow), while deny and ask rules and
// commands the rules cannot see through still decide; `unsandboxed` always asks.
import { decideBash, type Decision } from '../permissions/decide';
import type { RuleSource } from '../permissions/rules';
import type { SandboxSettings } from '../../shared/sandbox-schemas';

export interface CommandPolicy {
  permissions: RuleSource;
  bashPolicy: 'ask' | 'allow' | 'deny';
  sandbox: SandboxSettings;
}

export async function decideCommand(p: CommandPolicy, command: string, where: { inside: boolean; unsandboxed: boolean }): Promise<Decision> {
  const fallback = where.inside && !where.unsandboxed && p.sandbox.autoAllow && p.bashPolicy === 'ask' ? 'allow' : p.bashPolicy;
  const d = await decideBash(p.permissions, command, fallback);
  if (d.verdict === 'deny' || !where.unsandboxed) return d;
  return { verdict: 'ask', reason: 'it asks to run outside the sandbox: whole filesystem and network' };
}
