// Recording an agent's writes and undoing one (docs/file-formats.md, "Changes"). A revert
// restores the content before a change only while the file still holds exactly what that
// change wrote; otherwise it says what is in the way and touches nothing.
import { readFile, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Task } from '../../shared/schemas';
import { WorkspaceFs, type WriteObserver } from '../exec/workspace-fs';
import { ChangeLog, sha256, type ChangeRecord } from './change-log';

/** The task an agent is working on when it writes: the lowest-id one it owns in progress. */
export async function currentTask(select: (pick: (t: Task) => boolean) => Promise<Task[]>, agent: string): Promise<number | null> {
  const tasks = await select((t) => t.owner === agent && t.status === 'in_progress').catch(() => [] as Task[]);
  return tasks[0]?.id ?? null;
}

/** An observer for one agent's WorkspaceFs rooted at `root` (the workspace or its worktree). */
export function changeRecorder(
  log: ChangeLog, agent: string, root: string, task: () => Promise<number | null>, recorded?: (rec: ChangeRecord) => Promise<unknown>,
): WriteObserver {
  let roots: Promise<[string, string]> | undefined;
  return async (w) => {
    roots ??= Promise.all([realpath(log.teamRoot), realpath(root)]);
    const [realTeamRoot, realRoot] = await roots;
    const rec = await log.record(agent, realRoot, w, { task: await task(), realTeamRoot });
    // What follows a record (overlap warnings) never fails the write it describes.
    await recorded?.(rec).catch(() => undefined);
  };
}

export type RevertResult = { ok: true; record: ChangeRecord; message: string } | { ok: false; message: string };

/** Undoes `c` as `by` (the user), recording the revert as a change of its own. */
export async function revertChange(log: ChangeLog, c: ChangeRecord, by = 'user'): Promise<RevertResult> {
  const where = c.root ? `${c.root}/${c.path}` : c.path;
  // The file where it is now, confined to its root inside the team folder.
  const wfs = new WorkspaceFs(path.resolve(log.teamRoot, c.root));
  let abs: string;
  try {
    abs = await wfs.resolve(c.path);
  } catch (e) {
    return { ok: false, message: `Not reverted: ${(e as Error).message}.` };
  }
  const now = await readFile(abs).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
  const nowHash = now === null ? null : sha256(now);
  const expected = c.after ? c.after.sha256 ?? '?' : null;
  if (nowHash !== expected) {
    const what = now === null ? 'has been deleted' : c.after === null ? 'exists again' : 'has changed';
    return { ok: false, message: `Not reverted: ${where} ${what} since ${c.agent}'s change (by hand or by a later change), so restoring the old content would lose that work.` };
  }
  if (c.before === null) {
    // The change created the file: undoing it removes it (recorded as a change to nothing).
    await unlink(abs);
    const rec = await log.record(by, path.resolve(log.teamRoot, c.root), { abs, tool: 'revert', before: now, after: null }, {
      task: c.task, reverts: c.id, realTeamRoot: await realpath(log.teamRoot),
    }).catch(() => null);
    return rec ? { ok: true, record: rec, message: `Reverted: ${where} removed (${c.agent} had created it).` } : { ok: true, record: c, message: `Reverted: ${where} removed.` };
  }
  const before = await log.content(c.before);
  if (!before) {
    const why = c.before.why === 'binary' ? 'it was binary' : c.before.why === 'too_large' ? 'it was over 1 MB' : 'its stored copy is missing';
    return { ok: false, message: `Not reverted: the content of ${where} before ${c.agent}'s change was not recorded (${why}).` };
  }
  let recorded: ChangeRecord | null = null;
  const capture = new WorkspaceFs(wfs.root, undefined, async (w) => {
    recorded = await log.record(by, await realpath(wfs.root), { ...w, tool: 'revert' }, { task: c.task, reverts: c.id, realTeamRoot: await realpath(log.teamRoot) });
  });
  try {
    await capture.writeFile(c.path, before.toString('utf8'));
  } catch (e) {
    return { ok: false, message: `Not reverted: ${(e as Error).message}.` };
  }
  return { ok: true, record: recorded ?? c, message: `Reverted ${c.agent}'s change to ${where}.` };
}
