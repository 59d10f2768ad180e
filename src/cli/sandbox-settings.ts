// The sandbox's settings in the CLI (docs/security.md): `--sandbox auto|required|off` and
// `--allow-domain <host>` (repeatable), then the `"sandbox"` object of `.team/settings.json`:
// its mode counts unless --sandbox was given, its hosts join the flags', its autoAllow holds.
import { allowedDomain, DEFAULT_SANDBOX, SANDBOX_MODES, type SandboxFile, type SandboxMode, type SandboxSettings } from '../shared/sandbox-schemas';
import { oneOf, stringList, stringOpt, UsageError, type OptionValues } from './args';

export function sandboxFromFlags(values: OptionValues): SandboxSettings {
  const mode = stringOpt(values, 'sandbox');
  const domains = stringList(values, 'allow-domain').map((d) => {
    const r = allowedDomain.safeParse(d);
    if (!r.success) throw new UsageError(`--allow-domain ${JSON.stringify(d)}: ${r.error.issues[0]?.message ?? 'not a host name'}`);
    return r.data;
  });
  return {
    ...DEFAULT_SANDBOX,
    mode: mode === undefined ? DEFAULT_SANDBOX.mode : oneOf<SandboxMode>(mode, SANDBOX_MODES, '--sandbox'),
    allowedDomains: domains,
  };
}

/** `f`: the file's `"sandbox"` section, already checked (core/team/team-settings.ts). */
export function withFileSandbox(f: SandboxFile | undefined, s: SandboxSettings, values: OptionValues): SandboxSettings {
  if (!f) return s;
  return {
    mode: stringOpt(values, 'sandbox') === undefined && f.mode ? f.mode : s.mode,
    allowedDomains: [...new Set([...s.allowedDomains, ...(f.allowedDomains ?? [])])],
    autoAllow: f.autoAllow ?? s.autoAllow,
  };
}
