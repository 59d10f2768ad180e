// What is checked before an entry joins the merge queue, so a request that could never land
// is refused at once with its reason and nothing changed: an unknown teammate, one without a
// worktree, a branch with nothing to merge, a repository mid-rebase or on a detached HEAD, a
// test command whose program does not exist.
import { runShell } from '../exec/shell';
import type { Team } from '../team/team';
import { git, type GitEnvOptions } from '../worktree/git';
import type { WorktreeManager } from '../worktree/manager';
import { commitAll, dirtyFiles } from '../worktree/repo';
import { isTeammateName } from '../util/names';
import { busyReason, headBranch } from './integrate';

export class MergeQueueError extends Error {}

export interface Candidate {
  teammate: string;
  branch: string;
  /** The teammate's checkout (absent when only its branch is kept). */
  checkout?: string;
  /** Where its test command's program is looked up (its working folder). */
  workdir: string;
  into: string;
  /** Uncommitted files in its checkout, committed when the entry is queued. */
  pending: string[];
}

/** The program a command starts (after `VAR=value` words), unquoted; '' when none. */
export function commandProgram(command: string): string {
  let rest = command.trimStart();
  for (;;) {
    const assign = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"])*\s+/.exec(rest);
    if (!assign) break;
    rest = rest.slice(assign[0].length);
  }
  const m = /^(?:'([^']*)'|"([^"]*)"|([^\s;&|<>()]+))/.exec(rest);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : '';
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Programs found on PATH before (a path relative to a folder is looked up every time). */
const found = new Set<string>();

/** Why `command` cannot run in `cwd` (its program is not found), or null. Asks bash itself. */
export async function missingProgram(command: string, cwd: string): Promise<string | null> {
  const program = commandProgram(command);
  if (!program) return `the test command "${command}" names no program`;
  if (found.has(program)) return null;
  const r = await runShell(`command -v -- ${quote(program)}`, { cwd, timeoutMs: 10_000, maxOutputBytes: 4096 });
  if (r.exitCode === 0) {
    if (!program.includes('/')) found.add(program);
    return null;
  }
  return `the test command's program "${program}" was not found (not on PATH, not a shell builtin${program.includes('/') ? ', no such executable file' : ''})`;
}

/** `gitDir`: the workspace's git folder. */
export async function preflight(team: Team, worktrees: WorktreeManager, teammate: string, tests: readonly (string | null)[], ctx: GitEnvOptions, gitDir: string): Promise<Candidate> {
  if (!isTeammateName(teammate)) throw new MergeQueueError(`"${teammate}" is not a teammate's name`);
  const [member, wt] = await Promise.all([team.roster.get(teammate), worktrees.get(teammate).catch(() => undefined)]);
  if (!member && !wt) throw new MergeQueueError(`unknown teammate "${teammate}": no member and no worktree has that name`);
  // A container teammate's branch (docs/containers.md) is queued like a worktree's, with no checkout here.
  const box = !wt && member?.container && member.branch ? { branch: member.branch } : null;
  if (!wt && !box) throw new MergeQueueError(`${teammate} works in the main checkout, not in a worktree of its own: there is no branch to queue`);
  const branch = wt?.branch ?? box!.branch;
  const root = worktrees.root;
  const checkout = wt?.status === 'active' ? wt.path : undefined;
  const into = await headBranch(gitDir);
  const busy = await busyReason(gitDir, into);
  if (busy || !into) throw new MergeQueueError(busy ?? 'the workspace is not on a branch');
  if (into === branch) throw new MergeQueueError(`the workspace has ${branch} itself checked out`);
  const [pending, count] = await Promise.all([
    checkout ? dirtyFiles(checkout, ctx, true).catch(() => []) : [],
    git(['rev-list', '--count', `refs/heads/${into}..refs/heads/${branch}`], { ...ctx, cwd: root, allowFail: true }),
  ]);
  if (count.code !== 0) throw new MergeQueueError(`branch ${branch} of ${teammate} no longer exists`);
  const ahead = Number(count.stdout.trim());
  if (ahead === 0 && pending.length === 0) {
    throw new MergeQueueError(`${branch} has nothing to merge into ${into}: every commit of it is already there and its checkout has no changes`);
  }
  const workdir = checkout ? wt!.workdir : root;
  for (const command of tests) {
    const missing = command ? await missingProgram(command, workdir) : null;
    if (missing) throw new MergeQueueError(missing);
  }
  return { teammate, branch, checkout, workdir, into, pending };
}

/** Commits a candidate's uncommitted work so the queued branch holds it (after every check passed). */
export async function commitPending(c: Candidate, ctx: GitEnvOptions): Promise<void> {
  if (c.checkout && c.pending.length) await commitAll(c.checkout, `${c.teammate}: work queued for merge`, ctx);
}
