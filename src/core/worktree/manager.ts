// Public entry point of worktree isolation: one WorktreeManager per workspace folder.
// Mutations take a cross-process lock, reconcile the index with git, then act; reads are
// lock-free over the atomically written index. Nothing here imports `vscode`.
//
// Decisions callers can rely on:
// - Every refusal throws WorktreeError (with `code`) before anything is written; an
//   operation that fails midway undoes its own work (create rolls back add + branch).
// - merge: into the branch checked out in the main checkout, --no-ff. Refused while the
//   main checkout has uncommitted tracked changes or a merge in progress, and while the
//   worktree has uncommitted changes unless `commitMessage` is given (then they are
//   committed first). A conflict is aborted and returned as `{status: 'conflict', files}`.
// - keep: branch stays, checkout goes (see lifecycle.ts). remove: checkout, branch and
//   record go; uncommitted files or commits the current branch lacks need `force`.
// - Mutations are not cancellable: a git killed halfway leaves exactly the half-made state
//   this module promises not to; each git call is bounded by `timeoutMs` instead.
// - Reconcile policy (adopt, mark missing, never delete the unknown): see reconcile.ts.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertRealWorktreesDir, branchOf, checkName, exists, makeContext, type EventExtra, type EventLogger, type EventName, type WorktreeContext,
} from './context';
import { branchState, type BranchState } from './branch-state';
import { diffRecord, type WorktreeDiff } from './diff';
import { WorktreeError } from './errors';
import type { GitEnvOptions } from './git';
import {
  createWorktree, findRecord, keepWorktree, removeWorktree, reopenWorktree,
  type CreateHooks, type CreateOptions, type KeepOptions, type OpEnv, type RemoveOptions, type RemoveResult,
} from './lifecycle';
import { withFileLock } from './lock';
import { mergeRecord, type MergeOptions, type MergeResult } from './merge';
import { emptyReport, reconcileIndex, type ReconcileReport } from './reconcile';
import { branchExists, ensureExcluded, repoInfo, resolveCommit, type RepoInfo } from './repo';
import { appendEvent, nowSeconds, peekIndex, readIndex, writeIndex, type WorktreeIndex, type WorktreeRecord } from './store';

export interface WorktreeManagerOptions extends GitEnvOptions {
  /** How long a mutation waits for another process's lock (default 30 s). */
  lockTimeoutMs?: number;
  /** Told whenever a mutation's reconcile changed something (corrupt index, adoption, vanished checkout). */
  onReport?: (report: ReconcileReport) => void;
  hooks?: CreateHooks;
}

export interface WorktreeInfo extends WorktreeRecord {
  /** The checkout, `<root>/.worktrees/<name>`; absent from disk unless status is `active`. */
  path: string;
  /** The workspace folder inside the checkout: where the teammate's tools are rooted. */
  workdir: string;
  /** From `ensure`: this call made the checkout (new, or a kept branch checked out again), so it needs its setup. */
  opened?: boolean;
}

interface Outcome {
  phase: 'after' | 'failed';
  extra?: EventExtra;
}

// A conflict is a normal result for the caller but a failed merge in the event log.
function mergeOutcome(r: MergeResult): Outcome {
  if (r.status === 'conflict') return { phase: 'failed', extra: { error: `conflict in ${r.files.join(', ')}`, files: r.files } };
  return { phase: 'after', extra: r.status === 'merged' ? { commit: r.commit, files: r.files } : {} };
}

export class WorktreeManager {
  private readonly ctx: WorktreeContext;

  constructor(root: string, private readonly opts: WorktreeManagerOptions = {}) {
    this.ctx = makeContext(root, { env: opts.env, timeoutMs: opts.timeoutMs }, opts.lockTimeoutMs ?? 30_000);
  }

  get root(): string {
    return this.ctx.root;
  }

  /** The checkout directory for `name` (validated); it exists only while the worktree is active. */
  pathOf(name: string): string {
    return join(this.ctx.dir, checkName(name));
  }

  /** `git worktree add -b wt/<name> .worktrees/<name> <base>`, recorded in the index. */
  async create(name: string, opts: CreateOptions = {}): Promise<WorktreeInfo> {
    const valid = checkName(name);
    const info = await repoInfo(this.ctx.root, this.ctx.git);
    // Exclude first, so .worktrees/ never shows in `git status`, not even for a moment.
    await ensureExcluded(info);
    await assertRealWorktreesDir(this.ctx);
    await mkdir(this.ctx.dir, { recursive: true });
    return this.mutate(info, 'create', valid, async (env) => this.toInfo(await createWorktree(env, valid, opts, this.opts.hooks ?? {})));
  }

  /**
   * The active worktree for `name`: a re-spawned teammate gets its old one back — its
   * checkout if present, else a fresh checkout of its kept (or orphaned) branch — and a new
   * one is created only when there is none.
   */
  async ensure(name: string, opts: CreateOptions = {}): Promise<WorktreeInfo> {
    const current = await this.get(name);
    if (current?.status === 'active' && (await exists(current.path))) return current;
    if (!current) return { ...(await this.create(name, opts)), opened: true };
    const valid = checkName(name);
    return this.mutate(await this.existingRepo(), 'create', valid, async (env) => {
      const rec = env.index.worktrees.find((r) => r.name === valid);
      const opened = rec?.status !== 'active';
      const done = rec ? await reopenWorktree(env, valid, opts, this.opts.hooks ?? {}) : await createWorktree(env, valid, opts, this.opts.hooks ?? {});
      return { ...this.toInfo(done), ...(opened ? { opened } : {}) };
    });
  }

  /**
   * Records what the worktree setup copied into the checkout (paths relative to the workspace
   * folder): copies of the main checkout's files, so keep and remove do not count them as
   * the teammate's git-ignored work (setup-config.ts, copy-in.ts).
   */
  async noteCopied(name: string, paths: string[]): Promise<void> {
    const valid = checkName(name);
    await withFileLock(this.ctx.lockPath, async () => {
      const { index } = await readIndex(this.ctx.indexPath);
      const rec = index.worktrees.find((r) => r.name === valid);
      if (!rec) return;
      rec.copied = [...new Set([...(rec.copied ?? []), ...paths])].sort();
      await writeIndex(this.ctx.indexPath, index);
    }, { timeoutMs: this.ctx.lockTimeoutMs });
  }

  /**
   * Why worktree `name` could not be created or reopened now (not a git repository, branch
   * `wt/<name>` made by someone else, its folder taken), or null. Creates nothing: a task
   * bound to it is refused at creation instead of failing whoever claims it.
   */
  async problemWith(name: string): Promise<string | null> {
    try {
      const valid = checkName(name);
      if (await this.get(valid)) return null;
      await repoInfo(this.ctx.root, this.ctx.git);
      const branch = branchOf(valid);
      if (await branchExists(this.ctx.root, branch, this.ctx.git)) {
        return `branch ${branch} already exists and is not a worktree of this team; delete or rename it, or pick another name`;
      }
      if (await exists(join(this.ctx.dir, valid))) return `${join(this.ctx.dir, valid)} already exists; move it away first`;
      if (!(await resolveCommit(this.ctx.root, 'HEAD', this.ctx.git))) return 'the repository has no commit yet';
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  async list(): Promise<WorktreeInfo[]> {
    return (await this.records()).map((r) => this.toInfo(r));
  }

  async get(name: string): Promise<WorktreeInfo | undefined> {
    const valid = checkName(name);
    const rec = (await this.records()).find((r) => r.name === valid);
    return rec && this.toInfo(rec);
  }

  /** What the branch has that the current branch lacks (from their merge base), plus uncommitted and untracked files while the checkout exists. */
  async diff(name: string): Promise<WorktreeDiff> {
    const rec = await this.record(name);
    return diffRecord(this.ctx.root, rec, await this.checkoutOf(rec), this.ctx.git);
  }

  /** Whether the branch is merged into the main checkout's current branch, and uncommitted files (branch-state.ts). */
  async branchState(name: string): Promise<BranchState> {
    const rec = await this.record(name);
    return branchState(this.ctx.root, rec, await this.checkoutOf(rec), this.ctx.git);
  }

  private async record(name: string): Promise<WorktreeRecord> {
    const valid = checkName(name);
    const rec = (await this.records()).find((r) => r.name === valid);
    if (!rec) throw new WorktreeError('not-found', `no worktree named "${valid}"`);
    return rec;
  }

  /**
   * Merges `wt/<name>` into the main checkout's current branch. A conflict is a result, not an
   * error: the merge is aborted and the files are listed. Refusals (dirty main checkout,
   * uncommitted worktree changes without `commitMessage`, detached HEAD) throw before any write.
   */
  async merge(name: string, opts: MergeOptions = {}): Promise<MergeResult> {
    const valid = checkName(name);
    return this.mutate(await this.existingRepo(), 'merge', valid, async (env) => {
      const rec = findRecord(env.index, valid);
      const checkout = await this.checkoutOf(rec);
      const result = await mergeRecord(this.ctx.root, rec, checkout, opts, this.ctx.git, () => env.log('merge', 'before', valid));
      if (result.status === 'merged') {
        rec.lastMerge = { commit: result.commit, at: nowSeconds() };
        rec.updatedAt = rec.lastMerge.at;
        await writeIndex(this.ctx.indexPath, env.index);
      }
      return result;
    }, mergeOutcome);
  }

  /** Keeps the work as branch `wt/<name>` and removes the checkout (see keepWorktree). */
  async keep(name: string, opts: KeepOptions = {}): Promise<WorktreeInfo> {
    const valid = checkName(name);
    return this.mutate(await this.existingRepo(), 'keep', valid, async (env) => this.toInfo(await keepWorktree(env, valid, opts)));
  }

  /** Removes checkout, branch and record. Refuses uncommitted changes or unmerged commits unless `force`. */
  async remove(name: string, opts: RemoveOptions = {}): Promise<RemoveResult> {
    const valid = checkName(name);
    return this.mutate(await this.existingRepo(), 'remove', valid, (env) => removeWorktree(env, valid, opts));
  }

  /**
   * Aligns the index with `git worktree list` (policy in reconcile.ts). Run it at start; it
   * is cheap and creates nothing in a workspace that never used worktrees.
   */
  async reconcile(): Promise<ReconcileReport> {
    if (!(await exists(this.ctx.dir))) return emptyReport();
    const info = await repoInfo(this.ctx.root, this.ctx.git);
    return withFileLock(this.ctx.lockPath, async () => (await this.sync(info)).report, { timeoutMs: this.ctx.lockTimeoutMs });
  }

  private async mutate<T>(
    info: RepoInfo, event: EventName, name: string, body: (env: OpEnv) => Promise<T>,
    outcome: (result: T) => Outcome = () => ({ phase: 'after' }),
  ): Promise<T> {
    await assertRealWorktreesDir(this.ctx);
    return withFileLock(this.ctx.lockPath, async () => {
      const { index, report } = await this.sync(info);
      if (report.corrupt || report.missing.length || report.restored.length || report.adopted.length || report.adoptedKept.length) {
        this.opts.onReport?.(report);
      }
      const env: OpEnv = { ctx: this.ctx, info, index, log: this.log };
      let result: T;
      try {
        result = await body(env);
      } catch (err) {
        await this.log(event, 'failed', name, { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
      const o = outcome(result);
      await this.log(event, o.phase, name, o.extra);
      return result;
    }, { timeoutMs: this.ctx.lockTimeoutMs });
  }

  // Lock held. A corrupt index is moved aside and rebuilt from git (including kept branches).
  private async sync(info: RepoInfo): Promise<{ index: WorktreeIndex; report: ReconcileReport }> {
    const read = await readIndex(this.ctx.indexPath);
    const report = emptyReport();
    if (read.corrupt) report.corrupt = read.corrupt;
    const changed = await reconcileIndex(this.ctx, info, read.index, report, read.corrupt !== undefined);
    if (changed || read.corrupt) await writeIndex(this.ctx.indexPath, read.index);
    return { index: read.index, report };
  }

  private async records(): Promise<WorktreeRecord[]> {
    await assertRealWorktreesDir(this.ctx);
    let index = await peekIndex(this.ctx.indexPath);
    if (index === 'corrupt') {
      const report = await this.reconcile();
      this.opts.onReport?.(report);
      index = await peekIndex(this.ctx.indexPath);
    }
    return index === 'corrupt' ? [] : index.worktrees;
  }

  // Operations other than create need a repository and an existing .worktrees/.
  private async existingRepo(): Promise<RepoInfo> {
    const info = await repoInfo(this.ctx.root, this.ctx.git);
    if (!(await exists(this.ctx.dir))) throw new WorktreeError('not-found', 'no worktrees have been created in this workspace');
    return info;
  }

  private async checkoutOf(rec: WorktreeRecord): Promise<string | undefined> {
    const path = join(this.ctx.dir, rec.name);
    return rec.status === 'active' && (await exists(path)) ? path : undefined;
  }

  private toInfo(rec: WorktreeRecord): WorktreeInfo {
    const path = join(this.ctx.dir, rec.name);
    return { ...rec, path, workdir: rec.subdir ? join(path, rec.subdir) : path };
  }

  // Logging never masks the outcome of the operation it describes.
  private readonly log: EventLogger = async (event, phase, name, extra = {}) => {
    const write = appendEvent(this.ctx.eventsPath, { event, phase, name, branch: branchOf(name), ts: nowSeconds(), ...extra });
    if (phase === 'before') await write;
    else await write.catch(() => undefined);
  };
}
