// The files a sandboxed command may not read: those Read deny rules name (docs/permissions.md),
// and every other name of the same file (a hard link), found by walking the folder. Only
// run when there are Read deny rules with a path; a walk is capped, and the cap is reported.
import { lstat, opendir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { compileRules } from '../permissions/decide';
import type { Rule, RuleSource } from '../permissions/rules';

/** Entries looked at per walk: a folder past this is only partly covered (reported). */
export const WALK_CAP = 200_000;

export interface HiddenPaths {
  files: string[];
  dirs: string[];
  /** The walk stopped at WALK_CAP entries. */
  capped: boolean;
}

type FileRule = Extract<Rule, { path: unknown }>;
type PathRule = FileRule & { path: NonNullable<FileRule['path']> };

/** What Read deny rules hide under `root` (real path), plus the absolute paths they name outright. */
export async function hiddenByReadRules(root: string, source: RuleSource | undefined): Promise<HiddenPaths> {
  const rules = compileRules(source).deny.filter((r): r is PathRule => r.tool === 'Read' && r.path !== null);
  const out: HiddenPaths = { files: [], dirs: [], capped: false };
  if (!rules.length) return out;
  const denied = (rel: string, abs: string) => rules.some((r) => r.path(rel, abs));
  const links: string[] = [];
  let seen = 0;
  const walk = async (dir: string): Promise<void> => {
    let d;
    try { d = await opendir(dir); } catch { return; }
    for await (const e of d) {
      if (++seen > WALK_CAP) { out.capped = true; break; }
      const abs = join(dir, e.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (e.isDirectory()) {
        if (denied(rel, abs)) out.dirs.push(abs);
        else if (e.name !== '.git') await walk(abs);
      } else if (e.isFile()) {
        if (denied(rel, abs)) out.files.push(abs);
        else links.push(abs);
      } else if (e.isSymbolicLink() && denied(rel, abs)) {
        out.files.push(abs);
      }
    }
  };
  await walk(root);
  await Promise.all(absoluteTargets(rules).map(async (p) => {
    const s = await lstat(p).catch(() => null);
    if (s?.isDirectory()) out.dirs.push(p);
    else if (s) out.files.push(p);
  }));
  await addHardLinks(out, links);
  return out;
}

/** `Read(//etc/secret)`, `Read(~/.ssh/**)`: the literal path before any wildcard. */
function absoluteTargets(rules: PathRule[]): string[] {
  const out: string[] = [];
  for (const r of rules) {
    const spec = /^Read\((.*)\)$/s.exec(r.text)?.[1]?.trim();
    if (!spec || !(spec.startsWith('//') || spec.startsWith('~/'))) continue;
    const abs = spec.startsWith('~/') ? join(process.env.HOME ?? '/nonexistent', spec.slice(2)) : spec.slice(1);
    const literal = abs.split('/').filter((s, i, all) => !/[*?[{]/.test(all.slice(0, i + 1).join('/')));
    const p = `/${literal.filter(Boolean).join('/')}`;
    if (p !== '/') out.push(p);
  }
  return out;
}

/** Another name of a hidden file (a hard link) is hidden too: identity, not name, decides. */
async function addHardLinks(out: HiddenPaths, candidates: string[]): Promise<void> {
  const ids = new Set<string>();
  for (const f of out.files) {
    const s = await stat(f).catch(() => null);
    if (s && s.nlink > 1) ids.add(`${s.dev}:${s.ino}`);
  }
  if (!ids.size) return;
  for (const f of candidates) {
    const s = await lstat(f).catch(() => null);
    if (s && s.nlink > 1 && ids.has(`${s.dev}:${s.ino}`)) out.files.push(f);
  }
}
