// What failed, and whose it is to fix (docs/file-formats.md, "Merge queue", failure): a
// conflict names the workspace branch's commits that changed the files and who made them; a
// failing test is the environment's when its program is missing (exit 126/127, "command not
// found") or when the same command fails on the workspace branch without the teammate's
// branch, else the branch's. The teammate is sent to change its branch only in that last case.
import type { Failure, MergeEntry } from '../../shared/schemas/merge-queue';
import { git, type GitEnvOptions } from '../worktree/git';
import type { TestOutcome } from './queue-test';
import { firstErrors } from './scratch-prep';

type Failed = Extract<TestOutcome, { kind: 'failed' }>;

/** The conflict's failure: the other side's commits (subject lines, authors) that changed `files` since the branch forked. */
export async function conflictFailure(top: string, base: string, tip: string, files: readonly string[], ctx: GitEnvOptions): Promise<Failure> {
  const r = await git(['log', '-n', '10', '--format=%h%x1f%an%x1f%s', base, `^${tip}`, '--', ...files.map((f) => `:(top,literal)${f}`)], { ...ctx, cwd: top, allowFail: true });
  const theirs = r.stdout.split('\n').filter(Boolean).map((l) => {
    const [commit = '', author = '', subject = ''] = l.split('\x1f');
    return { commit, author, subject };
  });
  return { step: 'merge', fault: 'branch', why: 'the branch and the workspace branch changed the same lines', theirs };
}

/** A shell saying a program is missing: "bash: jest: command not found", "sh: 1: jest: not found". */
const MISSING = /(?:^|\s)(?:ba|da|z)?sh: (?:line \d+: |\d+: )?[^\n:]+: (?:command )?not found$/m;

/**
 * Whose fault a failing test is. `onBase` runs the failing command on the workspace branch
 * without the teammate's branch (same checkout, same preparation); asked only when the exit
 * code does not already say.
 */
export async function testFailure(r: Failed, into: string, onBase: (command: string) => Promise<TestOutcome>): Promise<Failure> {
  const facts = { step: 'test' as const, exit_code: r.exit_code, first_errors: firstErrors(r.output) };
  if (r.exit_code === 127 || r.exit_code === 126 || MISSING.test(r.output)) {
    return { ...facts, fault: 'environment', why: `a program the test runs is missing or not executable here (exit ${r.exit_code}), not a fault of the branch` };
  }
  if (r.exit_code === null && /could not run the test command/.test(r.reason)) return { ...facts, fault: 'environment', why: 'the test command could not be run here' };
  // Ended from outside (a stop, the out-of-memory killer), not by a failure of its own.
  const killed = /killed by (SIGTERM|SIGKILL|SIGHUP|SIGINT)\b/.exec(r.reason);
  if (r.exit_code === null && killed) return { ...facts, fault: 'environment', why: `the test was ended from outside (${killed[1]}), not by a failure of the branch` };
  const base = await onBase(r.command);
  if (base.kind === 'failed') return { ...facts, fault: 'environment', why: `\`${r.command}\` fails on ${into} without the branch too (${base.exit_code === null ? 'not run' : `exit ${base.exit_code}`})` };
  if (base.kind === 'aborted') return { ...facts, fault: 'branch', why: 'the test failed on the merge' };
  return { ...facts, fault: 'branch', why: `\`${r.command}\` passes on ${into} without the branch` };
}

/** An entry holding only `command` (the failing one), to run it again on the base. */
export const withOnly = (e: MergeEntry, command: string): MergeEntry => ({ ...e, test_command: command, extra_test_command: null });
