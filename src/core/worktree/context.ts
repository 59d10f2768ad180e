// Where everything lives for one workspace, shared by the manager and its helpers.
import { lstat, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { assertTeammateName, NameError } from '../util/names';
import { WorktreeError } from './errors';
import type { GitEnvOptions } from './git';

export const WORKTREES_DIR = '.worktrees';
export const branchOf = (name: string): string => `wt/${name}`;

export interface WorktreeContext {
  root: string;
  /** `<root>/.worktrees`: checkouts, index, event log and lock. */
  dir: string;
  indexPath: string;
  eventsPath: string;
  lockPath: string;
  git: GitEnvOptions;
  lockTimeoutMs: number;
}

export function makeContext(root: string, git: GitEnvOptions, lockTimeoutMs: number): WorktreeContext {
  const abs = resolve(root);
  const dir = join(abs, WORKTREES_DIR);
  return {
    root: abs, dir, git, lockTimeoutMs,
    indexPath: join(dir, 'index.json'),
    eventsPath: join(dir, 'events.jsonl'),
    lockPath: join(dir, '.lock'),
  };
}

/** Validates a teammate name into the module's error type: the only way a name enters a path. */
export function checkName(name: unknown): string {
  try {
    return assertTeammateName(name);
  } catch (err) {
    if (err instanceof NameError) throw new WorktreeError('invalid-name', err.message, [], { cause: err });
    throw err;
  }
}

export function checkoutPath(ctx: WorktreeContext, name: string): string {
  return join(ctx.dir, checkName(name));
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

export type EventName = 'create' | 'remove' | 'keep' | 'merge';

export interface EventExtra {
  error?: string;
  base?: string;
  commit?: string;
  files?: string[];
}

/** Appends to events.jsonl; see store.ts for the line format. */
export type EventLogger = (event: EventName, phase: 'before' | 'after' | 'failed', name: string, extra?: EventExtra) => Promise<void>;

/**
 * Refuses a `.worktrees` that is not a real folder inside the workspace: a cloned repository
 * can ship it as a symbolic link, and checkouts, index, event log and the teammates' file
 * tools would then land wherever it points (as `.team` and `.tasks` are refused).
 */
export async function assertRealWorktreesDir(ctx: WorktreeContext): Promise<void> {
  const st = await lstat(ctx.dir).catch(() => null);
  if (!st || (st.isDirectory() && !st.isSymbolicLink())) return;
  const what = st.isSymbolicLink() ? 'a symbolic link' : 'not a folder';
  throw new WorktreeError('unsafe-path', `${ctx.dir} is ${what}: worktrees are only made in a real ${WORKTREES_DIR} folder inside the workspace. Remove it (or replace it with a folder) and try again.`);
}
