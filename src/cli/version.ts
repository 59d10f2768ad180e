// The package version for `--version`, read from package.json beside whichever build runs
// (dist/cli.js sits one level below it, out/src/cli/main.js three): walk up to find it.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export async function packageVersion(from = __dirname): Promise<string> {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent-teams' && pkg.version) return pkg.version;
    } catch {
      // not here (or unreadable): keep walking up
    }
    if (dirname(dir) === dir) break;
  }
  return 'unknown';
}
