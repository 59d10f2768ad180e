// Brings the index back in line with what git actually has. Git is the truth for what
// exists; the index only adds what git cannot know (base commit, kept-ness, merges).
//
// Policy:
// - A record whose checkout vanished (deleted by hand) becomes `missing`; git's stale
//   administrative entry for exactly that path is dropped (`git worktree remove --force`,
//   a targeted prune that leaves the user's other worktrees alone). The branch is untouched,
//   so committed work can still be diffed, merged or removed.
// - A checkout registered in git under .worktrees/<valid name> on branch wt/<name> but absent
//   from the index (a crash between `git worktree add` and the index write, or a corrupt
//   index moved aside) is ADOPTED as active, never deleted: it may already hold a teammate's
//   work, and removing is one explicit `remove()` away. Its base commit comes from the
//   create/before event when there is one, else the merge-base with HEAD.
// - Anything else under .worktrees/ (other branches, odd names, plain directories) is
//   reported and left alone: we never delete what we cannot prove we made.
import { readdir, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isParticipantName, RESERVED } from '../util/names';
import { branchOf, exists, type WorktreeContext } from './context';
import { git } from './git';
import { listGitWorktrees, type GitWorktreeEntry, type RepoInfo } from './repo';
import { nowSeconds, readEvents, type WorktreeIndex, type WorktreeRecord } from './store';

export interface ReconcileReport {
  /** Checkouts that vanished: now `missing`. */
  missing: string[];
  /** Missing or kept records whose checkout git has again: now `active`. */
  restored: string[];
  /** Checkouts git had but the index did not: adopted as `active`. */
  adopted: string[];
  /** After a corrupt index only: `wt/<name>` branches without checkout, adopted as `kept`. */
  adoptedKept: string[];
  /** Paths under .worktrees/ that are not ours; left untouched. */
  unmanaged: string[];
  /** The index failed to parse or validate and was moved aside. */
  corrupt?: { movedTo: string; reason: string };
}

export const emptyReport = (): ReconcileReport => ({ missing: [], restored: [], adopted: [], adoptedKept: [], unmanaged: [] });

export function reportIsEmpty(r: ReconcileReport): boolean {
  return !r.corrupt && [r.missing, r.restored, r.adopted, r.adoptedKept, r.unmanaged].every((l) => l.length === 0);
}

const isTeammate = (n: string): boolean => isParticipantName(n) && !(RESERVED as readonly string[]).includes(n);

/** Mutates `index` in place; returns whether it changed. Caller holds the lock. */
export async function reconcileIndex(
  ctx: WorktreeContext, info: RepoInfo, index: WorktreeIndex, report: ReconcileReport, rebuild: boolean,
): Promise<boolean> {
  const ours = await gitEntriesUnderDir(ctx);
  let changed = false;
  const byName = new Map(index.worktrees.map((r) => [r.name, r]));
  const now = nowSeconds();

  for (const rec of index.worktrees) {
    const entry = ours.get(rec.name);
    const path = join(ctx.dir, rec.name);
    const present = entry !== undefined && !entry.prunable && (await exists(path));
    if (present) {
      if (rec.status !== 'active') {
        Object.assign(rec, { status: 'active', updatedAt: now });
        report.restored.push(rec.name);
        changed = true;
      }
      continue;
    }
    if (entry) await dropStaleRegistration(ctx, entry);
    if (rec.status === 'active') {
      Object.assign(rec, { status: 'missing', updatedAt: now });
      report.missing.push(rec.name);
      changed = true;
    }
  }

  for (const [name, entry] of ours) {
    if (byName.has(name)) continue;
    const path = join(ctx.dir, name);
    if (entry.prunable || !(await exists(path))) {
      await dropStaleRegistration(ctx, entry);
      continue; // the branch (if any) is picked up below when rebuilding
    }
    if (!isTeammate(name) || entry.branch !== branchOf(name)) {
      report.unmanaged.push(entry.path);
      continue;
    }
    const rec = await adoptedRecord(ctx, info, name, 'active', now);
    index.worktrees.push(rec);
    byName.set(name, rec);
    report.adopted.push(name);
    changed = true;
  }

  if (rebuild) {
    for (const name of await wtBranches(ctx)) {
      if (byName.has(name) || !isTeammate(name)) continue;
      const rec = await adoptedRecord(ctx, info, name, 'kept', now);
      index.worktrees.push(rec);
      byName.set(name, rec);
      report.adoptedKept.push(name);
      changed = true;
    }
  }

  // Plain directories git does not know (e.g. a crash inside `git worktree add`) block a
  // create with the same name; report them so the message has somewhere to point.
  for (const d of await readdir(ctx.dir, { withFileTypes: true }).catch(() => [])) {
    if (d.isDirectory() && !ours.has(d.name) && !byName.has(d.name)) report.unmanaged.push(join(ctx.dir, d.name));
  }
  return changed;
}

/** Git's worktrees that sit directly in .worktrees/, by directory name. */
async function gitEntriesUnderDir(ctx: WorktreeContext): Promise<Map<string, GitWorktreeEntry>> {
  // Git may print the path through symlinks resolved (/tmp vs /private/tmp): match both.
  const dirs = new Set([ctx.dir, await realpath(ctx.dir).catch(() => ctx.dir)]);
  const out = new Map<string, GitWorktreeEntry>();
  for (const e of await listGitWorktrees(ctx.root, ctx.git)) {
    const p = resolve(e.path);
    if (dirs.has(dirname(p))) out.set(basename(p), e);
  }
  return out;
}

async function dropStaleRegistration(ctx: WorktreeContext, entry: GitWorktreeEntry): Promise<void> {
  await git(['worktree', 'remove', '--force', entry.path], { ...ctx.git, cwd: ctx.root, allowFail: true });
}

async function wtBranches(ctx: WorktreeContext): Promise<string[]> {
  const r = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/wt/'], { ...ctx.git, cwd: ctx.root });
  return r.stdout.split('\n').filter(Boolean).map((ref) => ref.replace(/^refs\/heads\/wt\//, '')).filter((n) => !n.includes('/'));
}

async function adoptedRecord(
  ctx: WorktreeContext, info: RepoInfo, name: string, status: 'active' | 'kept', now: number,
): Promise<WorktreeRecord> {
  const branch = branchOf(name);
  const base = await recoverBase(ctx, name, branch);
  return { name, branch, baseRef: base.ref, baseCommit: base.commit, subdir: info.subdir, status, createdAt: now, updatedAt: now, adopted: true };
}

async function recoverBase(ctx: WorktreeContext, name: string, branch: string): Promise<{ ref: string; commit: string }> {
  const events = await readEvents(ctx.eventsPath);
  const logged = events.reverse().find((e) => e.event === 'create' && e.phase === 'before' && e.name === name && e.base);
  const run = (args: string[]) => git(args, { ...ctx.git, cwd: ctx.root, allowFail: true });
  if (logged?.base && (await run(['merge-base', '--is-ancestor', logged.base, branch])).code === 0) {
    return { ref: logged.base, commit: logged.base };
  }
  const mb = await run(['merge-base', 'HEAD', branch]);
  if (mb.code === 0 && mb.stdout.trim()) return { ref: 'HEAD', commit: mb.stdout.trim() };
  const tip = await git(['rev-parse', branch], { ...ctx.git, cwd: ctx.root });
  return { ref: branch, commit: tip.stdout.trim() };
}
