// One merge-queue entry's test command (docs/file-formats.md, "Merge queue"), run in the
// scratch checkout as the teammate's own commands run: the `bash` engine (process group,
// timeout, output cap), in the sandbox (docs/security.md) or refused with the reason when it is
// required and missing. The code tested is the teammate's, so the repository's git folder is
// read-only to it: it cannot move a branch and land itself. It runs in the queue's own box.
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { ProcessRegistry } from '../exec/process-group';
import { runShell } from '../exec/shell';
import type { CommandSandbox } from '../sandbox/sandbox';

/**
 * The sandbox box the queue's tests share (CommandSandbox.launch's `how.box`): their own /tmp,
 * emptied before each, and network namespace, apart from what their teammates run meanwhile.
 * Not a valid agent name, so never a teammate's own box.
 */
export const QUEUE_BOX = 'merge queue';

const TAIL_LINES = 40;
const TAIL_CHARS = 4_000;

/** Where the queue's tests run: the host's sandbox, or the worker's own. */
export type TestSandbox = Pick<CommandSandbox, 'launch'> & Partial<Pick<CommandSandbox, 'prepare'>>;

export type TestOutcome =
  | { kind: 'passed' }
  | { kind: 'failed'; reason: string; command: string; exit_code: number | null; output: string; output_tail?: string }
  | { kind: 'aborted' };

/** The entry's test commands in the order they run: the configured one, then the one the lead added. */
export const testsOf = (e: Pick<MergeEntry, 'test_command' | 'extra_test_command'>): string[] =>
  [e.test_command, e.extra_test_command].filter((c): c is string => !!c);

export async function runEntryTest(
  sandbox: TestSandbox, e: MergeEntry, cwd: string, signal: AbortSignal,
  o: { timeoutMs?: number; processes?: ProcessRegistry },
): Promise<TestOutcome> {
  for (const command of testsOf(e)) {
    const r = await runOne(sandbox, e, command, cwd, signal, o);
    if (r.kind !== 'passed') return r;
  }
  return { kind: 'passed' };
}

async function runOne(
  sandbox: TestSandbox, e: MergeEntry, command: string, cwd: string, signal: AbortSignal,
  o: { timeoutMs?: number; processes?: ProcessRegistry },
): Promise<TestOutcome> {
  // As "merge queue" (its network questions say so), in the queue's own box.
  const plan = await sandbox.launch(QUEUE_BOX, cwd, command, { gitReadOnly: true, box: QUEUE_BOX });
  if ('refused' in plan) return { kind: 'failed', reason: `could not run the test command \`${command}\`: ${plan.refused}`, command, exit_code: null, output: plan.refused };
  const r = await runShell(command, {
    cwd, timeoutMs: o.timeoutMs ?? 600_000, maxOutputBytes: 30_000, signal, plan,
    // Tracked as the queue's, not the teammate's: a teammate idling out must not kill its entry's test.
    ...(o.processes ? { track: { registry: o.processes, owner: QUEUE_BOX } } : {}),
  });
  if (signal.aborted) return { kind: 'aborted' };
  if (r.exitCode === 0) return { kind: 'passed' };
  const how = r.timedOut ? `timed out after ${Math.round(r.timeoutMs / 1000)} s` : r.error ? `could not start (${r.error})` : r.exitCode !== null ? `exit ${r.exitCode}` : `killed by ${r.signal}`;
  return { kind: 'failed', reason: `failed the test command \`${command}\` on the merge (${how})`, command, exit_code: r.exitCode, output: r.output, output_tail: tail(r.output) };
}

/** The end of `output`: at most TAIL_LINES lines and TAIL_CHARS characters. */
export function tail(output: string): string {
  const lines = output.replace(/\s+$/, '').split('\n').slice(-TAIL_LINES).join('\n');
  return lines.length > TAIL_CHARS ? `…${lines.slice(-TAIL_CHARS)}` : lines;
}
