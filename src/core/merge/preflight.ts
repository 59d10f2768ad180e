// What is checked before an entry joins the merge queue, so a request that could never land
// is refused at once with its reason and nothing changed: an unknown teammate, one without a
// worktree, a branch with nothing to merge, a repository mid-rebase or on a detached HEAD, a
// test command whose program does not exist. Only once every check passed is the teammate's
// uncommitted work committed to its branch.
import { runShell } from '../exec/shell';
import type { Team } from '../team/team';
import { git } from '../worktree/git';
import type { WorktreeManager } from '../worktree/manager';
import { commitAll, dirtyFiles, repoInfo } from '../worktree/repo';
import { isTeammateName } from '../util/names';
import { headState } from './integrate';

export class MergeQueueError extends Error {}

/** The program a command starts (after `VAR=value` words), unquoted; '' when none. */
function commandProgram(command: string): string {
  let rest = command.trimStart();
  for (;;) {
    const assign = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"])*\s+/.exec(rest);
    if (!assign) break;
    rest = rest.slice(assign[0].length);
  }
  const m = /^(?:'([^']*)'|"([^"]*)"|([^\s;&|<>()]+))/.exec(rest);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : '';
}

/** Why `command` cannot run in `cwd` (its program is not found), or null. Asks bash itself. */
async function missingProgram(command: string, cwd: string): Promise<string | null> {
  const program = commandProgram(command);
  if (!program) return `the test command "${command}" names no program`;
  const r = await runShell(`command -v -- '${program.replace(/'/g, `'\\''`)}'`, { cwd, timeoutMs: 10_000, maxOutputBytes: 4096 });
  if (r.exitCode === 0) return null;
  return `the test command's program "${program}" was not found (not on PATH, not a shell builtin${program.includes('/') ? ', no such executable file' : ''})`;
}

/** Checks that `teammate`'s branch can be queued with `tests`, then commits its uncommitted work; returns the branch. */
export async function preflight(team: Team, worktrees: WorktreeManager, teammate: string, tests: readonly (string | null)[]): Promise<string> {
  if (!isTeammateName(teammate)) throw new MergeQueueError(`"${teammate}" is not a teammate's name`);
  const [member, wt] = await Promise.all([team.roster.get(teammate), worktrees.get(teammate).catch(() => undefined)]);
  if (!member && !wt) throw new MergeQueueError(`unknown teammate "${teammate}": no member and no worktree has that name`);
  // A container teammate's branch (docs/containers.md) is queued like a worktree's, with no checkout here.
  const branch = wt?.branch ?? (member?.container ? member.branch : undefined);
  if (!branch) throw new MergeQueueError(`${teammate} works in the main checkout, not in a worktree of its own: there is no branch to queue`);
  const root = worktrees.root;
  const checkout = wt?.status === 'active' ? wt.path : undefined;
  const head = await headState(await repoInfo(root, {}));
  const into = head.branch;
  if (head.busy || !into) throw new MergeQueueError(head.busy ?? 'the workspace is not on a branch');
  if (into === branch) throw new MergeQueueError(`the workspace has ${branch} itself checked out`);
  const [pending, count] = await Promise.all([
    checkout ? dirtyFiles(checkout, {}, true).catch(() => []) : [],
    git(['rev-list', '--count', `refs/heads/${into}..refs/heads/${branch}`], { cwd: root, allowFail: true }),
  ]);
  if (count.code !== 0) throw new MergeQueueError(`branch ${branch} of ${teammate} no longer exists`);
  if (Number(count.stdout.trim()) === 0 && pending.length === 0) {
    throw new MergeQueueError(`${branch} has nothing to merge into ${into}: every commit of it is already there and its checkout has no changes`);
  }
  for (const command of tests) {
    const missing = command ? await missingProgram(command, checkout ? wt!.workdir : root) : null;
    if (missing) throw new MergeQueueError(missing);
  }
  if (checkout && pending.length) await commitAll(checkout, `${teammate}: work queued for merge`, {});
  return branch;
}
