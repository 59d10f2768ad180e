// Paths the user's git configuration names as code or configuration (docs/security.md, "The
// policy table"): a `core.hooksPath` folder (husky's `.husky/_`, a `.githooks` folder), an
// included config file (`include.path = ../.gitconfig`), a program path (`core.fsmonitor`,
// a filter, a diff or merge driver). Where one lies inside an agent's writable folder, the
// user's own `git commit` (or VS Code's) would run what the agent wrote there, so fs-policy.ts
// guards it like a control folder. Read with the product's git (worktree/git.ts) and kept
// while the config files it came from are unchanged, so a command's start costs two stats.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { git, splitZ } from '../worktree/git';
import type { GitPaths } from '../worktree/git-folders';
import { GIT_CONFIG_PATH_KEYS } from './policy';

export interface ConfiguredPath {
  path: string;
  /** A folder (hooks), else a file. */
  folder: boolean;
}

const KEYS = new RegExp(`^(?:${GIT_CONFIG_PATH_KEYS.map((k) => k.replace(/\./g, '\\.').replace(/\*/g, '.+')).join('|')})$`, 'i');
const cache = new Map<string, { key: string; paths: ConfiguredPath[] }>();

const fileKey = (p: string) => stat(p).then((s) => `${s.mtimeMs}:${s.size}`, () => '-');

/** The paths the configuration in effect for the checkout at `git.top` names (absolute, not yet filtered to a folder). */
export async function configuredGitPaths(g: GitPaths): Promise<ConfiguredPath[]> {
  const globalFile = process.env.GIT_CONFIG_GLOBAL ?? join(homedir(), '.gitconfig');
  const key = (await Promise.all([join(g.common, 'config'), globalFile].map(fileKey))).join('|');
  const held = cache.get(g.top);
  if (held?.key === key) return held.paths;
  const r = await git(['config', '-z', '--show-scope', '--show-origin', '--get-regexp', '.'], { cwd: g.top, allowFail: true, timeoutMs: 10_000 });
  const parts = splitZ(r.stdout);
  const paths: ConfiguredPath[] = [];
  // Each entry: scope, origin, "key\nvalue".
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [scope, origin, kv] = [parts[i]!, parts[i + 1]!, parts[i + 2]!];
    if (scope === 'command') continue; // the product's own -c settings
    const nl = kv.indexOf('\n');
    const name = nl < 0 ? kv : kv.slice(0, nl);
    const value = nl < 0 ? '' : kv.slice(nl + 1);
    if (!KEYS.test(name) || !value) continue;
    const hooks = /^core\.hookspath$/i.test(name);
    for (const { path: p, folder } of pathsOf(name, value, g.top, origin)) {
      paths.push({ path: p, folder: hooks || folder });
      // husky 9's `.husky/_` holds shims that run the scripts one folder up.
      if (hooks && basename(p) === '_') paths.push({ path: dirname(p), folder: true });
    }
  }
  cache.set(g.top, { key, paths });
  return paths;
}

/**
 * The paths a setting names. A path setting: its folder or file (an include relative to the
 * file that includes it). A command: every word of it with a slash (`sh scripts/x.sh`,
 * `node tools/t.js`, `./bin/clean`, `--config=tools/c.json`), and the module of a `-m` (python
 * runs `<checkout>/<module>.py` or its package folder first) — relative to the checkout.
 */
function pathsOf(name: string, value: string, top: string, origin: string): ConfiguredPath[] {
  const expand = (v: string) => (v.startsWith('~/') ? join(homedir(), v.slice(2)) : v);
  if (/^(core\.hookspath|include\.path|includeif\..+\.path)$/i.test(name)) {
    if (!value || /^(true|false)$/i.test(value)) return [];
    // An include is relative to the file that includes it; a hook folder to the checkout.
    const from = name.toLowerCase().startsWith('include') && origin.startsWith('file:') ? dirname(resolve(top, origin.slice(5))) : top;
    return [{ path: resolve(from, expand(value)), folder: false }];
  }
  const words = [...value.replace(/^\s*!/, '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  const out: ConfiguredPath[] = [];
  words.forEach((w, i) => {
    const v = expand(w.replace(/^-[^=]*=/, ''));
    if (v.includes('/') && !/^[a-z]+:\/\//i.test(v)) out.push({ path: resolve(top, v), folder: false });
    else if (words[i - 1] === '-m' && /^[\w.]+$/.test(v)) {
      const mod = v.split('.');
      out.push({ path: resolve(top, `${mod.join('/')}.py`), folder: false }, { path: resolve(top, mod[0]!), folder: true });
    }
  });
  return out;
}
