// The merge queue's scratch checkout (docs/file-formats.md, "Merge queue"): where each entry's
// test runs, apart from the user's checkout — one detached `git worktree` in a temporary folder
// per run of the queue, moved from merge to merge and emptied of what the last test left. The
// folder names the worker's pid, so one left by a host that died is removed by the next worker
// that makes one. Prepared like a teammate's worktree (worktree.copy, worktree.setup; again only
// when a lockfile changed), else the main checkout's ignored node_modules is linked in: read-only
// to the test, which runs in the sandbox.
import { lstat, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Prepared } from '../../shared/schemas/merge-queue';
import { runShell } from '../exec/shell';
import { isProcessAlive } from '../util/process-alive';
import { copyIntoWorktree } from '../worktree/copy-in';
import { WorktreeError } from '../worktree/errors';
import { firstLines, git, splitZ } from '../worktree/git';
import type { RepoInfo } from '../worktree/repo';
import { worktreeSetupFor } from '../worktree/setup-config';
import type { WorkerOptions } from './queue-options';
import { QUEUE_BOX } from './queue-test';

const PREFIX = 'agent-teams-merge-';
/** Lockfiles whose change makes the setup run again. */
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'bun.lock'];

/** What preparing the checkout reads of the worker's options: the setup setting, the sandbox its commands run in. */
type PrepEnv = Pick<WorkerOptions, 'settings' | 'tests'>;

export interface SetupFailed { reason: string; exit_code: number | null; output: string }

/** The checkout's workspace folder, ready; or the setup that failed. */
export type Ready = { workdir: string; prepared: Prepared } | { prepared: Prepared; failed: SetupFailed };

const exists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

export class ScratchCheckout {
  private dir: string | null = null;
  /** What the checkout was prepared with: the lockfiles' blob ids, and the paths kept when it is emptied. */
  private prep: { key: string; prepared: Prepared; keep: string[] } | null = null;

  /** `root`: the main checkout's workspace folder. */
  constructor(private readonly root: string) {}

  /** The checkout at `commit`, prepared (again only when its lockfiles differ from what it was prepared for). */
  async ready(p: RepoInfo, commit: string, env: PrepEnv, signal: AbortSignal): Promise<Ready> {
    const key = await this.lockKey(p, commit);
    // A lockfile changed: what was prepared goes with the emptying below.
    if (this.prep?.key !== key) this.prep = null;
    const workdir = await this.at(p, commit);
    if (this.prep) return { workdir, prepared: this.prep.prepared };
    const { prepared, keep, failed } = await this.prepare(workdir, env, signal);
    if (failed) return { prepared, failed };
    this.prep = { key, prepared, keep };
    return { workdir, prepared };
  }

  /** The checkout moved to `commit` as prepared (to run a command on the base); null when its lockfiles differ (not comparable). */
  async asPrepared(p: RepoInfo, commit: string): Promise<string | null> {
    if (!this.prep || (await this.lockKey(p, commit)) !== this.prep.key) return null;
    const dir = await this.at(p, commit);
    return this.prep ? dir : null; // made anew: not prepared
  }

  /** Removes the checkout, its folder and git's record of them; never fails. */
  async release(): Promise<void> {
    const dir = this.dir;
    [this.dir, this.prep] = [null, null];
    if (dir) await removeScratch(this.root, dir);
  }

  /** The lockfiles of the workspace folder at `commit`, as one string (their blob ids). */
  private async lockKey(p: RepoInfo, commit: string): Promise<string> {
    const paths = LOCKFILES.map((f) => `:(top,literal)${p.subdir ? `${p.subdir}/` : ''}${f}`);
    return (await git(['ls-tree', '-z', commit, '--', ...paths], { cwd: p.toplevel, allowFail: true })).stdout;
  }

  /** The checkout at `commit`: moved there and emptied of what the last test left (what was prepared kept), else made anew. */
  private async at(p: RepoInfo, commit: string): Promise<string> {
    const sub = (dir: string) => (p.subdir ? join(dir, p.subdir) : dir);
    if (this.dir) {
      // git run there and there only: never in a repository above it, should the checkout be gone.
      const g = { cwd: this.dir, allowFail: true, extraEnv: { GIT_CEILING_DIRECTORIES: dirname(this.dir) } };
      // --detach: no branch a test checked out there is moved.
      if ((await git(['checkout', '--quiet', '--force', '--detach', commit], g).catch(() => null))?.code === 0) {
        const keep = (this.prep?.keep ?? []).map((k) => `/${p.subdir ? `${p.subdir}/` : ''}${k}`);
        await git(['clean', '-ffdxq', ...keep.flatMap((k) => ['-e', k])], g).catch(() => undefined);
        return sub(this.dir);
      }
      await this.release();
    }
    await sweep(this.root);
    const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    const r = await git(['worktree', 'add', '--detach', '--quiet', dir, commit], { cwd: p.toplevel, allowFail: true });
    if (r.code !== 0) {
      await removeScratch(this.root, dir);
      throw new WorktreeError('git-failed', `could not make a scratch checkout: ${firstLines(r.stderr)}`);
    }
    this.dir = dir;
    return sub(dir);
  }

  private async prepare(workdir: string, env: PrepEnv, signal: AbortSignal): Promise<{ prepared: Prepared; keep: string[]; failed?: SetupFailed }> {
    const cfg = await worktreeSetupFor(this.root, env.settings().worktreeSetup);
    const keep: string[] = [];
    const done: string[] = [];
    if (cfg.copy.length) {
      const r = await copyIntoWorktree(this.root, workdir, cfg.copy, cfg.timeoutSeconds * 1000, signal);
      keep.push(...r.copied);
      done.push(r.copied.length ? `copied ${r.copied.join(', ')}` : `nothing matched ${cfg.copy.join(', ')}`, ...r.problems);
    }
    for (const command of cfg.setup) {
      const plan = await env.tests.launch(QUEUE_BOX, workdir, command, { gitReadOnly: true, box: QUEUE_BOX });
      const prepared: Prepared = { mode: 'setup', detail: [...done, `\`${command}\` failed`].join('; ') };
      if ('refused' in plan) return { keep, prepared, failed: { reason: `the setup command \`${command}\` was not run: ${plan.refused}`, exit_code: null, output: '' } };
      const r = await runShell(command, { cwd: workdir, timeoutMs: cfg.timeoutSeconds * 1000, maxOutputBytes: 30_000, signal, plan });
      if (r.exitCode !== 0) return { keep, prepared, failed: { reason: `the setup command \`${command}\` failed (${r.timedOut ? 'timed out' : `exit ${r.exitCode}`})`, exit_code: r.exitCode, output: r.output } };
      done.push(`ran \`${command}\``);
    }
    if (cfg.setup.length) {
      // What the setup made (node_modules, a virtualenv…) is kept between entries.
      const made = splitZ((await git(['ls-files', '-z', '--others', '--directory'], { cwd: workdir, allowFail: true })).stdout);
      keep.push(...made.map((p) => p.replace(/\/$/, '')));
    }
    if (cfg.copy.length || cfg.setup.length) return { keep, prepared: { mode: cfg.setup.length ? 'setup' : 'copy', detail: done.join('; ') } };
    const shared = await this.shareDeps(workdir);
    return { keep: shared, prepared: shared.length ? { mode: 'shared', detail: `${shared.join(', ')} of the main checkout, linked read-only` } : { mode: 'none', detail: 'a plain checkout' } };
  }

  /**
   * The main checkout's dependency folders that git ignores, linked in where the checkout has
   * none: `node_modules` for a package.json (a library often commits no lockfile; the lockfiles
   * only decide when the checkout is prepared again).
   */
  private async shareDeps(workdir: string): Promise<string[]> {
    if (!(await exists(join(workdir, 'package.json')))) return [];
    if (!(await exists(join(this.root, 'node_modules'))) || (await exists(join(workdir, 'node_modules')))) return [];
    if ((await git(['check-ignore', '-q', 'node_modules'], { cwd: this.root, allowFail: true })).code !== 0) return [];
    await symlink(join(this.root, 'node_modules'), join(workdir, 'node_modules'), 'dir');
    return ['node_modules'];
  }
}

/** Removes a scratch checkout's folder and git's record of it; never fails. */
async function removeScratch(root: string, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  await git(['worktree', 'prune'], { cwd: root, allowFail: true }).catch(() => undefined);
}

/** Removes scratch checkouts (and git's records of them) of workers whose process is gone; never fails. */
async function sweep(root: string): Promise<void> {
  for (const n of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(n)?.[1]);
    if (pid && pid !== process.pid && !isProcessAlive(pid)) await removeScratch(root, join(tmpdir(), n));
  }
}
