// One merge-queue entry's test commands (docs/file-formats.md, "Merge queue"), run in the
// scratch checkout as the teammate's own commands run (process group, timeout, the sandbox:
// docs/security.md), in the queue's own box. The code tested is the teammate's, so the git
// folder is read-only to it: it cannot move a branch and land itself. And whose fault a failing
// test is (testFailure): the environment's or the branch's.
import type { Failure, MergeEntry } from '../../shared/schemas/merge-queue';
import { runShell } from '../exec/shell';
import type { WorkerOptions } from './queue-options';

/**
 * The sandbox box the queue's tests share (CommandSandbox.launch's `how.box`): their own /tmp,
 * emptied before each, and network namespace, apart from what their teammates run meanwhile.
 * Not a valid agent name, so never a teammate's own box.
 */
export const QUEUE_BOX = 'merge queue';

export type TestOutcome =
  | { kind: 'passed' }
  | { kind: 'failed'; reason: string; command: string; exit_code: number | null; output: string }
  | { kind: 'aborted' };

/** The entry's test commands in the order they run: the configured one, then the one the lead added. */
export const testsOf = (e: Pick<MergeEntry, 'test_command' | 'extra_test_command'>): string[] =>
  [e.test_command, e.extra_test_command].filter((c): c is string => !!c);

/** Runs `commands` in `cwd`, one after the other, until one does not pass. */
export async function runTests(o: Pick<WorkerOptions, 'tests' | 'processes'>, signal: AbortSignal, commands: readonly string[], cwd: string): Promise<TestOutcome> {
  for (const command of commands) {
    // As "merge queue" (its network questions say so), in the queue's own box.
    const plan = await o.tests.launch(QUEUE_BOX, cwd, command, { gitReadOnly: true, box: QUEUE_BOX });
    if ('refused' in plan) return { kind: 'failed', reason: `could not run the test command \`${command}\`: ${plan.refused}`, command, exit_code: null, output: plan.refused };
    const r = await runShell(command, {
      cwd, timeoutMs: 600_000, maxOutputBytes: 30_000, signal, plan,
      // Tracked as the queue's, not the teammate's: a teammate idling out must not kill its entry's test.
      ...(o.processes ? { track: { registry: o.processes, owner: QUEUE_BOX } } : {}),
    });
    if (signal.aborted) return { kind: 'aborted' };
    if (r.exitCode === 0) continue;
    const how = r.timedOut ? `timed out after ${Math.round(r.timeoutMs / 1000)} s` : r.error ? `could not start (${r.error})` : r.exitCode !== null ? `exit ${r.exitCode}` : `killed by ${r.signal}`;
    return { kind: 'failed', reason: `failed the test command \`${command}\` on the merge (${how})`, command, exit_code: r.exitCode, output: r.output };
  }
  return { kind: 'passed' };
}

/** A shell saying a program is missing: "bash: jest: command not found", "sh: 1: jest: not found". */
const MISSING = /(?:^|\s)(?:ba|da|z)?sh: (?:line \d+: |\d+: )?[^\n:]+: (?:command )?not found$/m;

/**
 * Whose fault a failing test is. `onBase` runs the failing command on the workspace branch
 * without the teammate's branch (same checkout, same preparation); asked only when the exit
 * code and how it ended do not already say.
 */
export async function testFailure(r: Extract<TestOutcome, { kind: 'failed' }>, into: string, onBase: (command: string) => Promise<TestOutcome>): Promise<Failure> {
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

/** The end of `output`: at most 40 lines and 4000 characters. */
export function tail(output: string): string {
  const lines = output.replace(/\s+$/, '').split('\n').slice(-40).join('\n');
  return lines.length > 4_000 ? `…${lines.slice(-4_000)}` : lines;
}

/** The first lines of `output` that look like errors (else its first lines), capped. */
export function firstErrors(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim());
  const errors = lines.filter((l) => /error|fail|not found|cannot|denied|exception|✖|assert/i.test(l));
  return tail((errors.length ? errors : lines).slice(0, 8).join('\n'));
}
