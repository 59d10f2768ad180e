// The merge-queue tool (docs/file-formats.md, "Merge queue"): the lead queues a worktree
// teammate's branch; the queue merges it in a scratch checkout, runs the test command there,
// and lands it only if the test passed. The lead and the teammate hear the outcome by message.
// The configured test command cannot be replaced or skipped by the model: its test_command
// only adds a command run after it (docs/security.md, "The merge queue's gate").
import { z } from 'zod';
import { MergeQueueError } from '../../merge/merge-queue';
import { decideBash } from '../../permissions/decide';
import { toolFamily, fail, ok, type AgentHandle, type ToolHost, type ToolResult } from './definition';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type MergeToolHost = Pick<ToolHost, 'settings' | 'approver' | 'mergeQueue' | 'containers'>;
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

/** How the result names the entry's test gate: the configured command first, then the lead's own. */
function testWords(e: { test_command: string | null; extra_test_command?: string | null }): string {
  if (!e.test_command) return e.extra_test_command ? `test: yours, \`${e.extra_test_command}\` (none configured)` : 'no test command configured (merge.testCommand) and none given: merge only, untested';
  const configured = `test: \`${e.test_command}\` (the configured test command)`;
  return e.extra_test_command ? `${configured}, then yours: \`${e.extra_test_command}\`` : configured;
}

export const queueMerge = defineTool({
  name: 'queue_merge',
  description: 'Merge a teammate\'s branch in a scratch checkout; it lands if the tests pass, else goes back to the teammate.',
  input: z.object({
    teammate: z.string().min(1),
    test_command: z.string().nullish().describe('The project\'s test command, run on the merge after any configured one.'),
  }),
  agents: ['lead'],
  changesWorkspace: true,
  async run({ teammate, test_command }, a, h) {
    const refused = test_command?.trim() ? await commandRefusal(test_command, a, h) : null;
    if (refused) return refused;
    try {
      // A container teammate's latest commits come back first (docs/containers.md): what is queued is what it has.
      const back = h.containers.has(teammate) ? await h.containers.bringBack(teammate).then(() => null, (e: Error) => e.message) : null;
      if (back) return fail(`Not queued: the work of ${teammate} could not be brought back from its container: ${back}.`);
      // The configured command is the user's gate: a model's command is run in addition, never instead (docs/security.md).
      const { entry, position } = await h.mergeQueue.add(teammate, { by: a.name, extraTest: test_command });
      return ok(`Queued ${entry.branch} of ${teammate} (${testWords(entry)}), position ${position}. A failure wakes you only if you must act (a branch at fault goes back to its teammate and is queued again by itself); a landing reaches you with the team's results when the team goes quiet. End your turn to wait.`);
    } catch (err) {
      if (err instanceof MergeQueueError) return fail(`Not queued: ${err.message}.`);
      throw err;
    }
  },
});

export const mergeTools = [queueMerge];
