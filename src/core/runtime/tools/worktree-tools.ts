// The lead's tools for its teammates' branches (README "Worktrees"): where each branch stands,
// what it has that the current branch lacks, and keeping or removing a worktree once its
// work has landed. Landing a branch is the merge queue's job (queue_merge), not a tool here.
// The rules are the worktree module's and the session's (in use, removable): the lead never
// forces — discarding work that is not merged is the user's call.
import { z } from 'zod';
import { worktreeUsers, worktreeViews, type WorktreeView } from '../../worktree/in-use';
import { branchStateWords } from '../../worktree/branch-state';
import { WorktreeError } from '../../worktree/errors';
import { toolFamily, fail, MAX_OUTPUT, ok, type ToolHost, type ToolResult } from './definition';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type WorktreeToolHost = Pick<ToolHost, 'team' | 'worktrees'>;
const defineTool = toolFamily<keyof WorktreeToolHost>();

const teammate = z.string().min(1);

function viewLine(w: WorktreeView): string {
  const who = w.users.length ? `, in use by ${w.users.join(', ')}` : '';
  const offer = w.removable ? ' — merged, clean and its teammate has shut down: remove it with worktree_remove' : '';
  return `${w.name}: branch ${w.branch}, ${w.status === 'active' ? 'checkout present' : w.status}, ${branchStateWords(w.state)}${who}${offer}`;
}

/** Errors the worktree module refuses with are the model's to read; anything else is too. */
async function attempt(body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (err) {
    return fail(err instanceof WorktreeError ? `Refused: ${err.message}` : `Failed: ${(err as Error).message}`);
  }
}

/** Refuses while a teammate works in the checkout (core/worktree/in-use.ts). */
async function inUse(h: WorktreeToolHost, name: string): Promise<ToolResult | null> {
  const users = await worktreeUsers(h.team, name, h.worktrees.pathOf(name));
  return users.length ? fail(`Refused: worktree "${name}" is in use by ${users.join(', ')}; ask ${users.length === 1 ? 'it' : 'them'} to shut down first (shutdown_request).`) : null;
}

export const worktreeStatus = defineTool({
  name: 'worktree_status',
  description: 'Your teammates\' worktrees, and which branches are merged into the current one.',
  input: z.object({}),
  agents: ['lead'],
  async run(_i, _a, h) {
    return attempt(async () => {
      const views = await worktreeViews(h.team, h.worktrees);
      return ok(views.length ? views.map(viewLine).join('\n') : 'No worktrees: spawn a teammate with isolation "worktree" to give it one.');
    });
  },
});

export const worktreeDiff = defineTool({
  name: 'worktree_diff',
  description: 'What a teammate\'s branch has that is not merged yet.',
  input: z.object({
    teammate,
    stat: z.boolean().nullish().describe('Files only.'),
  }),
  agents: ['lead'],
  async run({ teammate: name, stat }, _a, h) {
    return attempt(async () => {
      const d = await h.worktrees.diff(name);
      if (!d.files.length) return ok(`${d.branch} has nothing the current branch lacks.`);
      const files = d.files.map((f) => `${f.change} ${f.from ? `${f.from} -> ` : ''}${f.path}${d.uncommitted.includes(f.path) ? ' (uncommitted)' : ''}`);
      const head = `${d.branch}: ${d.files.length} file(s) not merged yet${d.uncommitted.length ? `, ${d.uncommitted.length} of them uncommitted (they are not merged until committed)` : ''}:\n${files.join('\n')}`;
      if (stat) return ok(head);
      const room = MAX_OUTPUT - head.length;
      const patch = d.text.length > room ? `${d.text.slice(0, room)}\n… (${d.text.length - room} more characters: ask for fewer files or read them)` : d.text;
      return ok(`${head}\n\n${patch}`);
    });
  },
});

export const worktreeKeep = defineTool({
  name: 'worktree_keep',
  description: 'Drop a checkout, keep its branch.',
  input: z.object({
    teammate,
    commit_message: z.string().min(1).nullish().describe('Commit uncommitted files first.'),
  }),
  agents: ['lead'],
  changesWorkspace: true,
  async run({ teammate: name, commit_message }, _a, h) {
    return attempt(async () => {
      const busy = await inUse(h, name);
      if (busy) return busy;
      const w = await h.worktrees.keep(name, { commitMessage: commit_message ?? undefined });
      return ok(`Kept branch ${w.branch}; the checkout of "${name}" is removed.`);
    });
  },
});

export const worktreeRemove = defineTool({
  name: 'worktree_remove',
  description: 'Remove a worktree and its branch; refused if work would be lost.',
  input: z.object({ teammate }),
  agents: ['lead'],
  changesWorkspace: true,
  async run({ teammate: name }, _a, h) {
    return attempt(async () => {
      const busy = await inUse(h, name);
      if (busy) return busy;
      const r = await h.worktrees.remove(name);
      return ok(`Removed worktree "${r.name}" and branch ${r.branch}.`);
    });
  },
});

export const worktreeTools = [worktreeStatus, worktreeDiff, worktreeKeep, worktreeRemove];
