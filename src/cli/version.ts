// The package the running build belongs to, for `--version` and for where its documents are:
// package.json beside whichever build runs (dist/cli.js sits one level below it,
// out/src/cli/main.js three) — walk up to find it. Its `docs/` folder ships with it (the
// .vsix allows docs/**), so help can name the folder the docs/*.md it mentions are in.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

interface Found { root: string; version: string }

async function findPackage(from: string): Promise<Found | null> {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent-teams' && pkg.version) return { root: dir, version: pkg.version };
    } catch {
      // not here (or unreadable): keep walking up
    }
    if (dirname(dir) === dir) break;
  }
  return null;
}

export async function packageVersion(from = __dirname): Promise<string> {
  return (await findPackage(from))?.version ?? 'unknown';
}

/** The version, and the folder of the documents help names (`docs/security.md`…) or null when the build has none beside it. */
export async function packageInfo(from = __dirname): Promise<{ version: string; docs: string | null }> {
  const found = await findPackage(from);
  if (!found) return { version: 'unknown', docs: null };
  const docs = join(found.root, 'docs');
  return { version: found.version, docs: (await readFile(join(docs, 'security.md')).then(() => true, () => false)) ? docs : null };
}
