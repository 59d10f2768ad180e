// The effective sandbox for a folder, in one object (`agent-teams sandbox`, the Team view's
// row): mode, engine, what is missing, and what a command there may read, write and reach.
import type { SandboxSettings } from '../../shared/sandbox-schemas';
import type { RuleSource } from '../permissions/rules';
import { detectEngine } from './engine';
import { fsPolicy } from './fs-policy';
import { hiddenByReadRules } from './read-deny';

export interface SandboxReport {
  mode: SandboxSettings['mode'];
  /** Commands run in the sandbox. */
  active: boolean;
  engine: 'bubblewrap' | null;
  /** Programs to install for it. */
  missing: string[];
  /** Why there is no sandbox (null when there is). */
  reason: string | null;
  /** Without the sandbox, commands still get a pid namespace of their own. */
  pidNamespace: boolean;
  /** What happens to commands, in one line. */
  summary: string;
  writable: string[];
  readOnly: string[];
  /** Read deny rules: unreadable inside. */
  hidden: string[];
  allowedDomains: string[];
  autoAllow: boolean;
  /** An agent's commands share one network namespace and bridge (nsenter found), else one each (slower). */
  sharedNetwork: boolean;
}

export async function describeSandbox(root: string, cwd: string, s: SandboxSettings, rules: RuleSource | undefined, pathEnv?: string): Promise<SandboxReport> {
  const engine = await detectEngine(pathEnv);
  const active = s.mode !== 'off' && engine.engine !== null;
  const [fs, hidden] = await Promise.all([fsPolicy(root, cwd), hiddenByReadRules(root, rules)]);
  const summary = active
    ? `commands run in the sandbox${s.autoAllow ? '; those no rule decides run without asking' : ''}`
    : s.mode === 'required' ? `commands are refused: ${engine.reason}`
    : s.mode === 'off' ? `the sandbox is off: commands are judged by the permission rules alone${engine.pidNamespace ? ' (each in a pid namespace of its own)' : ''}`
    : `no sandbox here (${engine.reason}): commands are judged by the permission rules alone`;
  return {
    mode: s.mode, active, engine: engine.engine, missing: engine.missing, reason: engine.reason, pidNamespace: engine.pidNamespace, summary,
    writable: [...fs.writable, '/tmp (private to each agent)'], readOnly: [...fs.readOnly, ...fs.guarded],
    hidden: [...hidden.files, ...hidden.dirs], allowedDomains: s.allowedDomains, autoAllow: s.autoAllow,
    sharedNetwork: engine.nsenter !== null,
  };
}

/** The report as lines for a terminal. */
export function sandboxReportText(r: SandboxReport): string {
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : '(none)');
  return [
    `mode: ${r.mode}`,
    `engine: ${r.engine ?? 'none'}${r.reason ? ` (${r.reason})` : ''}`,
    ...(r.missing.length ? [`missing: ${r.missing.join(', ')}`] : []),
    `so: ${r.summary}`,
    ...(r.active ? [
      `writable: ${list(r.writable)}`,
      `read-only: ${list(r.readOnly)}`,
      `unreadable (Read deny rules): ${list(r.hidden)}`,
      'readable: everything else you can read, but the host\'s processes (own /proc), /tmp and /run',
      `network: only allowed hosts (${list(r.allowedDomains)}); others are asked once each; ${r.sharedNetwork
        ? 'an agent\'s commands share one network namespace'
        : 'each command starts its own network bridge (install util-linux\'s nsenter to share one per agent: faster)'}`,
    ] : []),
  ].join('\n');
}
