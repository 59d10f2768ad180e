// The merge queue's gate (docs/security.md, "The merge queue's gate"): a branch that adds,
// changes or deletes a control path — files that decide what the product, Claude Code, VS
// Code or git run or obey — lands only on the user's explicit yes, given with the diff of
// those files in front of them. A teammate can write such a file into its branch without it
// ever existing in its checkout (`git update-index --cacheinfo`), so the gate reads the merge's
// tree, not any checkout. An approval is bound to the content approved (each path's new blob):
// the branch changing a control file again asks again.
import picomatch from 'picomatch';
import type { ControlChange, MergeEntry } from '../../shared/schemas/merge-queue';
import { QUEUE_CONTROL_PATHS } from '../sandbox/policy';
import { isAbsolute, relative } from 'node:path';
import { configuredGitPaths } from '../sandbox/git-config-paths';
import { git } from '../worktree/git';
import { findGit } from '../worktree/git-folders';

const matches = picomatch(QUEUE_CONTROL_PATHS.map((g) => `**/${g}`), { dot: true, nocase: true });

export const isControlPath = (path: string): boolean => matches(path);

/**
 * The paths the user's git settings name inside the repository at `top` (docs/security.md,
 * "The policy table": a hooks folder, an include, a filter's script), relative to its top:
 * control paths too — a branch that changes one would make the user's own git run it.
 */
export async function configuredControlPaths(top: string): Promise<string[]> {
  const g = await findGit(top);
  if (!g) return [];
  return (await configuredGitPaths(g)).map((c) => relative(g.top, c.path)).filter((r) => r && !r.startsWith('..') && !isAbsolute(r));
}

/** Whether `path` (relative to the top) is one of `configured` or inside one. */
export const inConfigured = (path: string, configured: readonly string[]): boolean => configured.some((c) => path === c || path.startsWith(`${c}/`));

/** Whether every change is one the user approved, to the byte and the mode (a link is not a file of the same text). */
export function approvedAll(changes: readonly ControlChange[], approved: readonly ControlChange[] | null | undefined): boolean {
  const key = (c: ControlChange) => `${c.oid}:${c.mode ?? ''}`;
  const ok = new Map((approved ?? []).map((c) => [c.path, key(c)]));
  return changes.every((c) => ok.get(c.path) === key(c));
}

/** What the queue's host asks with: the Approver's file-change question (a diff with Allow / Deny). */
export type AskChange = (
  agent: string,
  change: { path: string; abs: string; before: string | null; after: string; rule: string; why?: string },
  signal: AbortSignal,
) => Promise<string>;

/** Up to this much of a file or diff is shown; a bigger one is shown cut (the approval still binds its full content). */
const cut = (text: string): string => (text.length > 256 * 1024 ? `${text.slice(0, 256 * 1024)}\n… (cut: ${text.length} characters)` : text);

/** Asks the user about each control file the entry changes, with its before (at `base`) and after; true only if every one is allowed. */
export async function askControl(ask: AskChange, e: MergeEntry, top: string, base: string, changes: readonly ControlChange[], signal: AbortSignal): Promise<boolean> {
  const blob = async (rev: string) => {
    const r = await git(['cat-file', 'blob', rev], { cwd: top, allowFail: true });
    return r.code === 0 ? cut(r.stdout) : null;
  };
  const why = `${e.teammate}'s branch ${e.branch} changes this control file; the merge queue lands it only on your yes`;
  for (const c of changes) {
    if (signal.aborted) return false;
    const after = c.oid ? (await blob(c.oid)) ?? '' : '';
    const change = { path: c.path, abs: `${top}/${c.path}`, before: await blob(`${base}:${c.path}`), after: c.mode === '120000' ? `(a symbolic link to ${after})` : after };
    const answer = await ask('merge queue', { ...change, rule: 'the merge queue\'s gate', why }, signal).catch(() => 'deny');
    if (answer !== 'allow' && answer !== 'always') return false;
  }
  return !signal.aborted;
}

/** `git diff` of the control files between `base` and the held merge `commit`: what the user approves. */
export async function controlDiffText(root: string, base: string, commit: string, changes: readonly ControlChange[]): Promise<string> {
  const r = await git(['diff', '--no-color', '--no-ext-diff', '--no-textconv', base, commit, '--', ...changes.map((c) => `:(top,literal)${c.path}`)], { cwd: root, allowFail: true });
  return cut(r.stdout);
}
