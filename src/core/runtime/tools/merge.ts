// The merge-queue tool (docs/file-formats.md, "Merge queue"): the lead queues a worktree
// teammate's branch; the queue merges it in a scratch checkout, runs the test command there,
// and lands it only if the test passed. The lead and the teammate hear the outcome by message.
import { z } from 'zod';
import { MergeQueueError } from '../../merge/merge-queue';
import { decideBash } from '../../permissions/decide';
import { toolFamily, fail, ok, type AgentHandle, type ToolHost, type ToolResult } from './definition';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type MergeToolHost = Pick<ToolHost, 'settings' | 'approver' | 'mergeQueue'>;
const defineTool = toolFamily<keyof MergeToolHost>();

/**
 * A test command the model names is a command like any other: judged by the permission rules
 * and the bash policy, and asked about when they say so (the configured one is the user's own).
 */
async function commandRefusal(command: string, a: AgentHandle, h: MergeToolHost): Promise<ToolResult | null> {
  const s = h.settings();
  const d = await decideBash(s.permissions, command, s.bashPolicy);
  if (d.verdict === 'deny') return fail(`Not queued: the test command is refused (${d.reason}).`);
  if (d.verdict === 'allow') return null;
  const answer = await h.approver.bash(a.name, command, a.signal, { reason: `the merge queue's test command for this merge: ${d.reason}`, suggestions: [] });
  return answer === 'allow' ? null : fail('Not queued: the user denied the test command.');
}

export const queueMerge = defineTool({
  name: 'queue_merge',
  description: 'Merge a teammate\'s branch in a scratch checkout and land it if the test passes; a conflict or failure goes back to the teammate.',
  input: z.object({
    teammate: z.string().min(1),
    test_command: z.string().nullish().describe('Default: the configured one; "" for none.'),
  }),
  agents: ['lead'],
  changesWorkspace: true,
  async run({ teammate, test_command }, a, h) {
    const refused = test_command?.trim() ? await commandRefusal(test_command, a, h) : null;
    if (refused) return refused;
    try {
      const { entry, position } = await h.mergeQueue.add(teammate, { by: a.name, testCommand: test_command });
      const test = entry.test_command ? `test: \`${entry.test_command}\`` : 'no test command: merge only';
      return ok(`Queued ${entry.branch} of ${teammate} (${test}), position ${position}. You will get a message when it lands or fails; end your turn to wait.`);
    } catch (err) {
      if (err instanceof MergeQueueError) return fail(`Not queued: ${err.message}.`);
      throw err;
    }
  },
});

export const mergeTools = [queueMerge];
