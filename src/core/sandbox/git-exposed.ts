// The limit of Read deny rules inside the sandbox (docs/security.md, "Read deny and git"): a
// sandboxed command may read the repository's object store (its commits need it), so a file
// a Read rule hides but git tracks can still be printed from there (`git show HEAD:.env`).
// The sandbox cannot hide one file's objects from git; instead the rule's limit is said where
// it is set: which hidden paths git tracks, for a notice and `agent-teams sandbox`.
import { isAbsolute, relative } from 'node:path';
import { git, splitZ } from '../worktree/git';

/** Of the hidden paths (absolute), those git tracks under `root` (a folder: any file in it). */
export async function trackedHidden(root: string, hidden: readonly string[]): Promise<string[]> {
  const inside = hidden.filter((p) => {
    const rel = relative(root, p);
    return rel && !rel.startsWith('..') && !isAbsolute(rel);
  });
  if (!inside.length) return [];
  const r = await git(['--literal-pathspecs', 'ls-files', '-z', '--', ...inside], {
    cwd: root, allowFail: true, timeoutMs: 15_000, extraEnv: { GIT_OPTIONAL_LOCKS: '0' },
  }).catch(() => null);
  if (!r || r.code !== 0) return [];
  const tracked = splitZ(r.stdout).map((f) => f.replace(/\/$/, ''));
  return inside.filter((p) => {
    const rel = relative(root, p).split('\\').join('/');
    return tracked.some((f) => f === rel || f.startsWith(`${rel}/`));
  });
}

/** The warning for `paths` (absolute; shown relative to `root`). */
export function gitExposureWarning(root: string, paths: readonly string[]): string {
  const names = paths.map((p) => relative(root, p)).join(', ');
  return `Read deny rules hide ${names}, but git tracks ${paths.length > 1 ? 'them' : 'it'}: a sandboxed command can still read the committed content through the repository (git show HEAD:<path>). Keep secrets out of git (docs/security.md, "Read deny and git").`;
}

/** Warns once per set of exposed paths (a Sandbox keeps one). */
export class GitExposure {
  private said = '';

  async check(root: string, hidden: readonly string[], warn: (message: string) => void): Promise<void> {
    if (!hidden.length) return;
    const exposed = await trackedHidden(root, hidden);
    const key = exposed.join('\0');
    if (!exposed.length || key === this.said) return;
    this.said = key;
    warn(gitExposureWarning(root, exposed));
  }
}
