// The merge queue as the user works it (docs/file-formats.md, "Merge queue"): list, add a
// worktree teammate's branch, cancel its open entry, retry its failed or cancelled one. The
// queue's refusals (unknown teammate, nothing to merge, already queued…) are said as they are.
import { z } from 'zod';
import type { MergeEntry } from '../../../shared/schemas/merge-queue';
import { ParticipantName } from '../../../shared/schemas';
import { MergeQueueError } from '../../merge/merge-queue';
import { ActionError, defineAction } from './action';

async function refusing<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof MergeQueueError ? new ActionError(err.message) : err;
  }
}

const testWords = (e: MergeEntry) => (e.test_command ? `test: ${e.test_command}` : 'merge only');
const Teammate = z.object({ teammate: ParticipantName });

export const queueList = defineAction({
  id: 'queueList', summary: "the merge queue: each entry's state (queued, testing, waiting, merged, failed with why)",
  args: z.object({}),
  run: ({ session }) => session.mergeQueue.list(),
  describe: (entries) => (entries.length ? entries.map((e) => `${e.teammate} ${e.branch} ${e.state}`).join('\n') : 'The merge queue is empty.'),
});

export const queueAdd = defineAction({
  id: 'queueAdd', summary: 'queue wt/<name>: merged in a scratch checkout, tested, landed only if the test passes',
  args: Teammate.extend({ test_command: z.string().optional() }),
  async run({ session, openTeam }, a) {
    await openTeam();
    return refusing(() => session.mergeQueue.add(a.teammate, { by: 'user', testCommand: a.test_command }));
  },
  describe: ({ entry, position }) => `Queued ${entry.branch} of ${entry.teammate} (${testWords(entry)}), #${position} in line.`,
});

export const queueCancel = defineAction({
  id: 'queueCancel', summary: "cancel a teammate's queued merge (a test running for it stops)",
  args: Teammate,
  run: ({ session }, a) => refusing(() => session.mergeQueue.cancel(a.teammate)),
  describe: (e) => `Cancelled ${e.branch} of ${e.teammate}.`,
});

export const queueRetry = defineAction({
  id: 'queueRetry', summary: "queue a teammate's failed or cancelled merge again, with its test command and task",
  args: Teammate,
  async run({ session, openTeam }, a) {
    await openTeam();
    return refusing(() => session.mergeQueue.retry(a.teammate, 'user'));
  },
  describe: ({ entry }) => `Queued ${entry.branch} of ${entry.teammate} again.`,
});

/**
 * The user's yes to an entry held at the queue's gate (docs/security.md, "The merge queue's
 * gate"): it changes control files, so it lands only once the user has seen their diff and
 * said yes — asked here where the host can ask, else given as `yes` (the CLI's --yes, after a
 * first call that shows the diff). Approved, the entry is queued again and lands if its merge
 * changes exactly those files to exactly that content (or fewer).
 */
export const queueApprove = defineAction({
  id: 'queueApprove', summary: "approve the control files (.claude/, .team/, .mcp.json, .vscode/, .git*…) a held merge changes, after seeing their diff; it is queued again",
  args: Teammate.extend({ yes: z.boolean().optional() }),
  async run(scope, a) {
    const { entry, diff } = await refusing(() => scope.session.mergeQueue.pendingApproval(a.teammate));
    const files = entry.control!.map((c) => c.path).join(', ');
    const text = `${entry.teammate}'s ${entry.branch} changes control files (${files}). Land it with these changes?`;
    const yes = a.yes === true || (scope.ask ? await scope.ask({ text, detail: diff, yes: 'Approve and Queue' }) : false);
    if (!yes) {
      if (scope.ask) return null;
      throw new ActionError(`${text}\n${diff}\nNothing was approved: run it again with --yes to approve exactly these changes.`);
    }
    await scope.openTeam();
    return refusing(() => scope.session.mergeQueue.approve(a.teammate, 'user'));
  },
  describe: (r, a) => (r ? `Approved; queued ${r.entry.branch} of ${r.entry.teammate} again, #${r.position} in line.` : `Nothing approved for ${a.teammate}.`),
});
