// What the merge queue tells the team when an entry settles (docs/file-formats.md, "Merge
// queue"), as the team (`from: "team"`, `merge_queue`), never in an agent's own words: the lead
// either way, woken only when it has something to do; the teammate when its branch is at fault
// (its task back in progress, brought back if it had shut down) or held at the gate; and a
// teammate whose fixed branch landed is asked again to shut down.
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import type { Team } from '../team/team';
import { fileList } from '../worktree/errors';
import type { WorkerOptions } from './queue-options';

type NoteHost = Pick<WorkerOptions, 'team' | 'notify' | 'bringBack' | 'store'>;

const shortSha = (c: string | null | undefined): string => (c ? c.slice(0, 10) : '?');

async function note(team: Team, to: string, content: string, wake: boolean): Promise<void> {
  await team.mailbox.send({ from: 'team', to, type: 'message', content, merge_queue: true, ...(wake ? {} : { notice: true }) }).catch(() => undefined);
}

export async function tellMerged(h: NoteHost, e: MergeEntry, already: boolean): Promise<void> {
  const into = e.into ?? 'the workspace branch';
  const what = already
    ? `${e.branch} had nothing new for ${into}`
    : `${e.branch} was merged into ${into} (commit ${shortSha(e.commit)}, ${e.files?.length ?? 0} file(s))${e.test_command ? ` after \`${e.test_command}\` passed` : ''}`;
  h.notify('info', `Merge queue: ${what}.`, e.teammate);
  await note(h.team, e.teammate, `[merge queue] Your branch ${what}.`, false);
  // Nothing to act on: the lead reads it with the team's results when the team goes quiet (quiet-team.ts), not one wake per branch.
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${what}.`, false);
  await shutDownAgain(h, e).catch(() => undefined);
}

/**
 * A teammate the queue brought back to fix its branch (tellFailed) had shut down at the
 * lead's request: once the fixed branch lands, it is asked again, on the lead's behalf, so
 * the lead spends no call on it.
 */
async function shutDownAgain(h: NoteHost, landed: MergeEntry): Promise<void> {
  if (landed.by !== 'fix') return;
  const mine = (await h.store.read()).filter((e) => e.teammate === landed.teammate);
  const before = mine[mine.findIndex((e) => e.id === landed.id) - 1];
  if (before?.state !== 'failed') return;
  const m = await h.team.roster.get(landed.teammate);
  if (!m || m.status === 'shutdown') return;
  // It was asked and had to fix its branch first (shutdown_response said "Not yet"): the same
  // request is put to it again, so the lead's own request is the one answered. Brought back
  // after it had shut down (its old requests expired with the re-spawn): asked anew.
  const open = (await h.team.requests.list({ status: 'pending', kind: 'shutdown', to: landed.teammate }).catch(() => [])).find((r) => r.from === 'lead');
  if (open) await h.team.mailbox.send({ from: 'lead', to: landed.teammate, type: 'shutdown_request', content: 'Please shut down: your fixed branch has landed.', request_id: open.request_id });
  else if (before.revived) await h.team.requestShutdown('lead', landed.teammate);
}

/** The failure in words: step, exit code, why it is whose, the other side's commits, the first errors and the output's end. */
function details(e: MergeEntry): string {
  const f = e.failure;
  if (!f) return e.output_tail ? `\nThe end of its output:\n${e.output_tail}` : '';
  const lines = [`Step: ${f.step}${f.exit_code !== undefined && f.exit_code !== null ? `, exit code ${f.exit_code}` : ''}. At fault: ${f.fault === 'branch' ? 'the branch' : 'the environment, not the branch'} (${f.why}).`];
  if (f.theirs?.length) lines.push(`${e.into ?? 'The workspace branch'} changed those files in: ${f.theirs.map((t) => `${t.commit} "${t.subject}" by ${t.author}`).join('; ')}.`);
  if (f.first_errors) lines.push(`First errors:\n${f.first_errors}`);
  if (e.output_tail) lines.push(`The end of its output:\n${e.output_tail}`);
  return `\n${lines.join('\n')}`;
}

/**
 * A failed entry told. A teammate that had shut down is brought back to fix its branch
 * (`bringBack`: entry-steps.ts marks the entry, so that once its fixed branch lands it is asked
 * to shut down again). A branch at fault is queued again by itself once its teammate has
 * committed and goes idle or completes the task (merge-queue.ts requeueFixed): nothing is left
 * for the lead to do, so the lead is told without being woken.
 */
export async function tellFailed(h: NoteHost, e: MergeEntry): Promise<void> {
  const into = e.into ?? 'the workspace branch';
  if (e.control?.length) return tellHeld(h, e, into);
  const notMerged = `${e.branch} was not merged into ${into}: it ${e.reason}. Nothing was merged.`;
  h.notify('warning', `Merge queue: ${e.teammate}'s ${notMerged}`, e.teammate);
  if (e.failure?.fault === 'environment') {
    // Nothing the teammate's branch can fix: it is told without being woken, its task stays as it is.
    await note(h.team, e.teammate, `[merge queue] Your branch ${notMerged} The cause is the environment, not your branch (${e.failure.why}): do not change your branch for it; the lead was told.`, false);
    await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${notMerged} The branch is not at fault: fix the environment (a missing program, the test command, worktree.setup) or tell the user, then retry it (/queue retry ${e.teammate}).${details(e)}`, e.by !== 'user');
    return;
  }
  const back = e.task === null ? null : await h.team.tasks.update(e.task, { status: 'in_progress' }, 'lead').catch(() => null);
  if (back?.owner === e.teammate) await h.team.roster.patch(e.teammate, { current_task: back.id }).catch(() => undefined);
  const task = back?.id ?? null;
  const taskLine = back ? ` Task #${back.id} is back in progress.` : '';
  const fix = e.files?.length && e.failure?.step !== 'test'
    ? `Bring ${into} into your branch (git merge ${into}), resolve the conflicts in ${fileList(e.files, 20)}, and commit.`
    : 'Fix it in your worktree and commit.';
  const then = `Then ${task !== null ? `mark task #${task} completed (task_update)` : 'go idle (idle)'}: the merge queue takes your branch again by itself once it has your new commits; nobody needs to queue it.`;
  // A teammate that has shut down (the lead asked it to with the queue_merge) reads nothing:
  // it is brought back to fix its own branch — the lead cannot write in its worktree.
  const gone = (await h.team.roster.get(e.teammate).catch(() => null))?.status === 'shutdown';
  const said = `[merge queue] Your branch ${notMerged}${taskLine} ${fix} ${then}${details(e)}`;
  // Brought back, it reads the note as its first prompt (mail to a teammate that has shut down is refused).
  const revived = gone && !!h.bringBack && await revive(h, e, `You had shut down; the merge queue brought you back. ${said}`).catch(() => false);
  if (!gone) await note(h.team, e.teammate, said, true);
  const requeued = `its branch is queued again by itself once it has committed a fix and ${task !== null ? `completed task #${task}` : 'gone idle'}`;
  const outcome = revived
    ? ` ${e.teammate} had shut down: the merge queue brought it back to fix it; ${requeued}, and it is asked to shut down again once it lands. Nothing for you to do.`
    : gone
      ? ` ${e.teammate} has shut down, so nobody is fixing it: spawn_teammate "${e.teammate}" again (same name: its conversation and worktree are resumed) and tell it what failed: ${fix}${details(e)}`
      : ` It went back to ${e.teammate}; ${requeued}. Nothing for you to do.`;
  // Woken only when the lead has something to do: bring a teammate back by hand.
  const act = gone && !revived;
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${notMerged}${outcome}${revived || !gone ? taskLine : ''}`, act);
}

/** Brings `e`'s teammate back with `prompt`; the entry is marked first (back, it could fix and land before a later write). */
async function revive(h: NoteHost, e: MergeEntry, prompt: string): Promise<boolean> {
  await h.store.set(e.id, { revived: true });
  const ok = await h.bringBack!(e.teammate, prompt).catch(() => false);
  if (!ok) await h.store.set(e.id, { revived: false });
  return ok;
}

/** Held at the gate (control-gate.ts): nothing for the teammate to fix; only the user can let it land. */
async function tellHeld(h: NoteHost, e: MergeEntry, into: string): Promise<void> {
  h.notify('warning', `Merge queue: ${e.teammate}'s ${e.branch} ${e.reason}.`, e.teammate);
  await note(h.team, e.teammate, `[merge queue] Your branch ${e.branch} is held before ${into}: it ${e.reason}. Nothing was merged; the user decides.`, false);
  await note(h.team, 'lead', `[merge queue] ${e.teammate}'s ${e.branch} is held before ${into}: it ${e.reason}. Only the user can approve it (Approve Merge in VS Code, agent-teams queue approve ${e.teammate}, or /queue approve ${e.teammate}); tell the user, do not work around it.`, e.by !== 'user');
}
