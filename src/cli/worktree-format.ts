// Plain-text rendering of teammates' git worktrees, shared by `agent-teams worktree …` and the
// session's /worktrees /diff /merge, so both say the same thing the same way.
import { describeIgnored, type DiffFile, type MergeResult, type ReconcileReport, type RemoveResult, type WorktreeDiff, type WorktreeInfo } from '../core/session';
import { relative } from 'node:path';
import { branchStateWords, type WorktreeView } from '../core/session';

const short = (sha: string): string => sha.slice(0, 7);
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function pad(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** `1a2b3c4 (main)`: the commit the branch started from, and what the caller called it. */
export function baseLabel(w: Pick<WorktreeInfo, 'baseRef' | 'baseCommit'>): string {
  return w.baseCommit.startsWith(w.baseRef) ? short(w.baseCommit) : `${short(w.baseCommit)} (${w.baseRef})`;
}

/**
 * One row per worktree, its status saying whether the branch is merged into the current
 * branch; then a hint for each one whose removal is offered (merged, clean, teammate gone).
 * `how` is how this interface removes one (`agent-teams worktree remove`, `/remove`).
 */
export function worktreeTable(list: WorktreeView[], root: string, how = 'agent-teams worktree remove'): string {
  if (!list.length) return 'No worktrees. A teammate spawned with isolation "worktree" gets one.';
  const rows = [
    ['name', 'branch', 'base', 'status', 'path'],
    ...list.map((w) => [
      w.name, w.branch, baseLabel(w),
      `${w.status}, ${branchStateWords(w.state)}`,
      w.status === 'active' ? relative(root, w.path) : '-',
    ]),
  ];
  const hints = list.filter((w) => w.removable).map((w) => `Hint: ${w.branch} is merged into ${w.state.into}, its checkout is clean and its teammate has shut down: remove it with \`${how} ${w.name}\` (nothing is lost).`);
  return [...pad(rows).map((l) => `  ${l}`), ...hints].join('\n');
}

export interface FileStat extends DiffFile {
  insertions: number;
  deletions: number;
  binary: boolean;
  uncommitted: boolean;
}

/**
 * Per-file line counts from the unified diff. Sections come in the same order as `files`
 * (both from one `git diff` with the same flags), so they are matched by position.
 */
export function diffStat(d: WorktreeDiff): FileStat[] {
  const sections: { ins: number; del: number; binary: boolean }[] = [];
  let cur: { ins: number; del: number; binary: boolean } | undefined;
  let inHunk = false;
  for (const line of d.text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = { ins: 0, del: 0, binary: false };
      sections.push(cur);
      inHunk = false;
    } else if (!cur) {
      continue;
    } else if (line.startsWith('@@')) {
      inHunk = true;
    } else if (!inHunk) {
      if (line.startsWith('Binary files ')) cur.binary = true;
    } else if (line.startsWith('+')) {
      cur.ins++;
    } else if (line.startsWith('-')) {
      cur.del++;
    }
  }
  const pending = new Set(d.uncommitted);
  return d.files.map((f, i) => {
    const s = sections[i] ?? { ins: 0, del: 0, binary: false };
    return { ...f, insertions: s.ins, deletions: s.del, binary: s.binary, uncommitted: pending.has(f.path) || (f.from !== undefined && pending.has(f.from)) };
  });
}

function diffHeader(d: WorktreeDiff): string {
  return `${d.branch} (worktree "${d.name}") since base ${short(d.mergeBase)}, head ${short(d.headCommit)}`;
}

export function statText(d: WorktreeDiff, stats: FileStat[] = diffStat(d)): string {
  if (!stats.length) return `${diffHeader(d)}: no changes.`;
  const rows = stats.map((s) => [
    s.change, s.from ? `${s.from} -> ${s.path}` : s.path,
    s.binary ? 'binary' : `+${s.insertions} -${s.deletions}`,
    s.uncommitted ? '(uncommitted)' : '',
  ]);
  const ins = stats.reduce((n, s) => n + s.insertions, 0);
  const del = stats.reduce((n, s) => n + s.deletions, 0);
  return [
    `${diffHeader(d)}:`,
    ...pad(rows).map((l) => `  ${l}`),
    `${plural(stats.length, 'file')} changed, ${plural(ins, 'insertion')}(+), ${plural(del, 'deletion')}(-)`,
  ].join('\n');
}

/** The patch itself (pipe it to `git apply`), or one line saying there is none. */
export function diffText(d: WorktreeDiff): string {
  return d.text ? d.text : `${diffHeader(d)}: no changes.`;
}

export function mergeText(name: string, branch: string, r: MergeResult): string {
  const pending = r.pendingCommit ? `Committed the worktree's uncommitted changes first (${short(r.pendingCommit)}).\n` : '';
  switch (r.status) {
    case 'merged':
      return `${pending}Merged ${branch} into ${r.into} (${short(r.commit)}): ${plural(r.files.length, 'file')} changed.`;
    case 'up-to-date':
      return `${pending}${r.into} already has everything on ${branch}; nothing to merge.`;
    case 'conflict':
      return `${pending}Merging ${branch} (worktree "${name}") into ${r.into} conflicts; the merge was aborted and nothing changed.\n`
        + `Conflicting files:\n${r.files.map((f) => `  ${f}`).join('\n')}`;
  }
}

export function keptText(w: WorktreeInfo): string {
  return `Kept worktree "${w.name}": its checkout is removed, the work stays on branch ${w.branch} (diff, merge or remove it later; spawning ${w.name} with a worktree again checks it out to continue).`;
}

export function removedText(r: RemoveResult): string {
  const lost: string[] = [];
  if (r.discardedFiles.length) lost.push(plural(r.discardedFiles.length, 'uncommitted file'));
  if (r.discardedCommits) lost.push(plural(r.discardedCommits, 'unmerged commit'));
  if (r.discardedIgnored.length) lost.push(`git-ignored ${describeIgnored(r.discardedIgnored)}`);
  return `Removed worktree "${r.name}" and branch ${r.branch}.${lost.length ? ` Discarded ${lost.join(' and ')}.` : ''}`;
}

/** What a reconcile found that the user should hear about (a vanished checkout, a corrupt index). */
export function reconcileWarnings(r: ReconcileReport): string[] {
  const out: string[] = [];
  if (r.corrupt) out.push(`the worktree index was unreadable (${r.corrupt.reason}); moved to ${r.corrupt.movedTo} and rebuilt from git`);
  if (r.missing.length) out.push(`checkout gone for ${r.missing.join(', ')}: marked missing (its branch is kept)`);
  if (r.adopted.length || r.adoptedKept.length) out.push(`adopted from git: ${[...r.adopted, ...r.adoptedKept].join(', ')}`);
  return out;
}
