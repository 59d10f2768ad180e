// The packaged extension (.vsix) the e2e suites install, as a user installs it. The test
// command packages it once for the whole e2e run and names it in AGENT_TEAMS_E2E_VSIX; a suite
// run on its own (node --test out/test/e2e/…) packages its own copy and removes it afterwards.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths';

export interface PackagedVsix {
  path: string;
  /** Removes the package if this suite made it; the shared one stays for the next suite. */
  dispose(): Promise<void>;
}

/** Packages the extension into `out` (build first, then vsce); used by the test command too. */
export function packageVsix(out: string): void {
  execFileSync(process.execPath, [join(repoRoot(), 'scripts', 'package.mjs'), '--out', out], { stdio: ['ignore', 2, 2] });
}

export function packagedVsix(name: string): PackagedVsix {
  const shared = process.env.AGENT_TEAMS_E2E_VSIX;
  if (shared && existsSync(shared)) return { path: shared, dispose: async () => {} };
  const path = join(tmpdir(), `agent-teams-${name}-${process.pid}.vsix`);
  packageVsix(path);
  return { path, dispose: () => rm(path, { force: true }) };
}
