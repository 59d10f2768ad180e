// A background job that ends by itself wakes its agent once: a message in the agent's own
// inbox (mail wakes idle agents and reaches working ones between tool rounds) saying which
// job ended with which exit code. Job list changes go out as events for the Team tree and
// the CLI's /jobs. See docs/tools.md.
import type { JobInfo, JobManager } from '../exec/jobs';
import type { Team } from '../team/team';
import type { Disposable, RuntimeEvent } from './types';

export function wireJobs(jobs: JobManager, team: Team, emit: (e: RuntimeEvent) => void): Disposable[] {
  return [
    jobs.onEnded((j) => {
      // What it printed since it was last read comes along (all of it, or its last lines with
      // the rest left for job_output), so the agent rarely needs another call.
      const unread = (() => { try { return jobs.read(j.owner, j.id, { keep: true }).output; } catch { return ''; } })();
      const text = jobEndedText(j, unread);
      if (!endedTail(unread)?.cut) try { jobs.read(j.owner, j.id); } catch { /* pruned meanwhile */ }
      void team.mailbox.send({ from: j.owner, to: j.owner, type: 'message', content: text, job_id: j.id, exit_code: j.exitCode })
        .catch((err: Error) => emit({ type: 'notice', level: 'warning', agent: j.owner, message: `${j.owner}: background job ${j.id} ended, but the note could not be delivered: ${err.message}` }));
    }),
    jobs.onChange((owner) => emit({ type: 'jobs', agent: owner, jobs: jobs.list(owner) })),
  ];
}

/**
 * The user stops a job (the Team tree's Kill action): its agent, told it would hear when the
 * job ends, gets a note saying the user killed it, once. Nothing is sent for a job that had
 * already ended.
 */
export async function killJobForUser(jobs: JobManager, team: Team, owner: string, id: string): Promise<JobInfo> {
  const was = jobs.list(owner).find((j) => j.id === id)?.state;
  const info = await jobs.kill(owner, id);
  if (was === 'running') {
    const cmd = info.command.length > 200 ? `${info.command.slice(0, 200)}…` : info.command;
    await team.mailbox.send({ from: owner, to: owner, type: 'message', content: `[background job] ${info.id} (\`${cmd}\`) was killed by the user.`, job_id: info.id });
  }
  return info;
}

/** Lines of a job's unread output its end message carries (the last ones; a failing test's error is there). */
export const ENDED_TAIL_LINES = 40;
const ENDED_TAIL_CHARS = 4_000;
/** What of `unread` an end message carries; `cut`: not all of it (the rest stays for job_output). Null: nothing printed. */
function endedTail(unread: string): { tail: string; cut: boolean } | null {
  if (!unread.trim()) return null;
  const lines = unread.replace(/\n$/, '').split('\n');
  const tail = lines.slice(-ENDED_TAIL_LINES).join('\n');
  if (tail.length > ENDED_TAIL_CHARS) return { tail: `…${tail.slice(-ENDED_TAIL_CHARS)}`, cut: true };
  return { tail, cut: lines.length > ENDED_TAIL_LINES };
}

export function jobEndedText(j: JobInfo, unread = ''): string {
  const how = j.exitCode !== null ? `with exit code ${j.exitCode}` : `killed by signal ${j.signal}`;
  const cmd = j.command.length > 200 ? `${j.command.slice(0, 200)}…` : j.command;
  const head = `[background job] ${j.id} (\`${cmd}\`) ended ${how}.`;
  const t = endedTail(unread);
  if (!t) return `${head} It printed nothing since it was last read.`;
  return `${head} ${t.cut ? `Its last lines (all of its output: job_output(job_id="${j.id}"))` : 'What it printed since it was last read'}:\n${t.tail}`;
}
