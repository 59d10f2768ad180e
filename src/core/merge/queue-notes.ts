// What the merge queue tells the team when an entry settles (docs/file-formats.md, "Merge
// queue"): a failed entry goes back to its teammate — a message with the conflicting files or
// the test output's tail, and its task back in progress — and the lead is told either way.
// Notes are written as the job notes are (job-wakes.ts): into the agent's own inbox, marked
// `[merge queue]`, so nobody else is put in their mouth.
import type { MergeEntry } from '../../shared/merge-queue-schema';
import type { Team } from '../team/team';
import { fileList } from '../worktree/errors';

interface NoteHost {
  team: Team;
  notify: (level: 'info' | 'warning' | 'error', message: string, agent?: string) => void;
}

const shortSha = (c: string | null | undefined): string => (c ? c.slice(0, 10) : '?');

async function note(team: Team, to: string, content: string, wake: boolean): Promise<void> {
  // merge_queue: the model sees it as from "merge-queue" (runtime/prompts.ts, formatMail).
  await team.mailbox.send({ from: to, to, type: 'message', content, merge_queue: true, ...(wake ? {} : { notice: true }) }).catch(() => undefined);
}

export async function tellMerged(h: NoteHost, e: MergeEntry, already: boolean): Promise<void> {
  const into = e.into ?? 'the workspace branch';
  const what = already
    ? `${e.branch} had nothing new for ${into}`
    : `${e.branch} was merged into ${into} (commit ${shortSha(e.commit)}, ${e.files?.length ?? 0} file(s))${e.test_command ? ` after \`${e.test_command}\` passed` : ''}`;
  h.notify('info', `Merge queue: ${what}.`, e.teammate);
  await note(h.team, e.teammate, `[merge queue] Your branch ${what}.`, false);
  // The lead wakes for what it queued; what the user queued it reads on its next turn.
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${what}.`, e.by !== 'user');
}

export async function tellFailed(h: NoteHost, e: MergeEntry): Promise<void> {
  const into = e.into ?? 'the workspace branch';
  if (e.control?.length) return tellHeld(h, e, into);
  let taskLine = '';
  if (e.task !== null) {
    const back = await h.team.tasks.update(e.task, { status: 'in_progress' }, 'lead').catch(() => null);
    if (back) {
      taskLine = ` Task #${back.id} is back in progress.`;
      if (back.owner === e.teammate) await h.team.roster.patch(e.teammate, { current_task: back.id }).catch(() => undefined);
    }
  }
  const fix = e.files?.length
    ? `Bring ${into} into your branch (git merge ${into}), resolve the conflicts in ${fileList(e.files, 20)}, and commit.`
    : 'Fix it in your worktree and commit.';
  const output = e.output_tail ? `\nThe end of its output:\n${e.output_tail}` : '';
  h.notify('warning', `Merge queue: ${e.teammate}'s ${e.branch} was not merged: it ${e.reason}.`, e.teammate);
  await note(h.team, e.teammate, `[merge queue] Your branch ${e.branch} was not merged into ${into}: it ${e.reason}. Nothing was merged.${taskLine} ${fix} Then mark the task completed and tell the lead, who queues it again.${output}`, true);
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${e.branch} was not merged into ${into}: it ${e.reason}. It went back to ${e.teammate}.${taskLine}`, e.by !== 'user');
}

/** Held at the gate (control-gate.ts): nothing for the teammate to fix; only the user can let it land. */
async function tellHeld(h: NoteHost, e: MergeEntry, into: string): Promise<void> {
  h.notify('warning', `Merge queue: ${e.teammate}'s ${e.branch} ${e.reason}.`, e.teammate);
  await note(h.team, e.teammate, `[merge queue] Your branch ${e.branch} is held before ${into}: it ${e.reason}. Nothing was merged; the user decides.`, false);
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${e.branch} is held before ${into}: it ${e.reason}. Only the user can approve it (agent-teams queue approve ${e.teammate}, or /queue approve ${e.teammate}); tell the user, do not work around it.`, e.by !== 'user');
}
