// The Sandbox row's words (the Team view, the status bar's tooltip): what happens to the
// agents' commands, in plain words — the engine's name and the policy are in the tooltip
// (docs/security.md, "Asking less"). Pure, so it is tested without VS Code.
import type { SandboxReport } from '../../core/session';

/** "on: commands run isolated" / "off: commands run unisolated" / "not installed (bubblewrap): commands are refused". */
export function sandboxWords(r: Pick<SandboxReport, 'active' | 'autoAllow' | 'mode' | 'missing'>): string {
  // Short enough for a 300 px side bar; whether it asks less is in the tooltip's report.
  if (r.active) return 'on: commands run isolated';
  if (r.mode === 'off') return 'off: commands run unisolated';
  const missing = r.missing.length ? `not installed (${r.missing.join(', ')})` : 'not available here';
  return r.mode === 'required' ? `${missing}: commands are refused` : `${missing}: commands run unisolated`;
}
