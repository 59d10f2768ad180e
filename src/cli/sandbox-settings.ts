// The sandbox's settings in the CLI (docs/security.md): `--sandbox auto|required|off` and
// `--allow-domain <host>` (repeatable), then the `"sandbox"` object of `.team/settings.json`:
// its mode counts unless --sandbox was given, its hosts join the flags', its autoAllow holds.
import { allowedDomain, DEFAULT_SANDBOX, SANDBOX_MODES, sandboxFileSchema, type SandboxMode, type SandboxSettings } from '../shared/sandbox-schemas';
import { reportProblem } from '../core/session';
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

/** `raw`: the file's `"sandbox"` value. A malformed one is reported and changes nothing. */
export function withFileSandbox(file: string, raw: unknown, s: SandboxSettings, values: OptionValues): SandboxSettings {
  if (raw === undefined) return s;
  const r = sandboxFileSchema.safeParse(raw);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.join('.') || 'sandbox'}: ${i.message}`).join('; ');
    reportProblem({ path: file, message: `"sandbox" is ignored: ${why}` });
    return s;
  }
  const f = r.data;
  return {
    mode: stringOpt(values, 'sandbox') === undefined && f.mode ? f.mode : s.mode,
    allowedDomains: [...new Set([...s.allowedDomains, ...(f.allowedDomains ?? [])])],
    autoAllow: f.autoAllow ?? s.autoAllow,
  };
}
