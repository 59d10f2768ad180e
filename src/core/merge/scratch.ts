// The merge queue's scratch checkout (docs/file-formats.md, "Merge queue"): where each
// entry's test runs, apart from the user's checkout. One detached `git worktree` in a temporary
// folder per run of the queue: made at the run's first test, moved from merge commit to merge
// commit (what the last test left removed first), and removed with git's record of it when
// the run ends or the worker stops. The folder's name holds the worker's process id: one left
// by a host that died is removed by the next worker that makes one.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isProcessAlive } from '../util/process-alive';
import { WorktreeError } from '../worktree/errors';
import { firstLines, git, type GitEnvOptions } from '../worktree/git';

const PREFIX = 'agent-teams-merge-';

export class ScratchCheckout {
  /** The temporary folder, written in the entry being tested: a host that goes away leaves it for the next to remove. */
  private dir: string | null = null;
  private checkout: string | null = null;

  constructor(private readonly root: string, private readonly git: GitEnvOptions) {}

  /** The folder the checkout is in, made now if need be (after removing those of dead workers). */
  async folder(): Promise<string> {
    if (this.dir) return this.dir;
    await sweep(this.root, this.git);
    this.dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    return this.dir;
  }

  /** Whether `dir` is this worker's folder (an entry naming it is not litter). */
  owns(dir: string): boolean {
    return dir === this.dir;
  }

  /** The checkout at `commit`: made, or emptied of what the last test left (`keep`: paths prepared for tests) and moved there. */
  async at(top: string, commit: string, keep: readonly string[] = []): Promise<{ dir: string; made: boolean }> {
    const folder = await this.folder();
    if (this.checkout) {
      // git run there and there only: never in a repository above it, should the checkout be gone.
      const g = { ...this.git, cwd: this.checkout, allowFail: true, extraEnv: { GIT_CEILING_DIRECTORIES: dirname(this.checkout) } };
      // --detach: no branch a test checked out there is moved.
      if ((await git(['checkout', '--quiet', '--force', '--detach', commit], g).catch(() => null))?.code === 0) {
        await git(['clean', '-ffdxq', ...keep.flatMap((k) => ['-e', `/${k}`])], g).catch(() => undefined);
        return { dir: this.checkout, made: false };
      }
      await this.drop();
    }
    const dir = join(folder, 'checkout');
    const r = await git(['worktree', 'add', '--detach', '--quiet', dir, commit], { ...this.git, cwd: top, allowFail: true });
    if (r.code !== 0) throw new WorktreeError('git-failed', `could not make a scratch checkout: ${firstLines(r.stderr)}`);
    this.checkout = dir;
    return { dir, made: true };
  }

  /** Removes the checkout and its folder, and git's record of them; never fails. */
  async release(): Promise<void> {
    const dir = this.dir;
    await this.drop();
    this.dir = null;
    if (dir) await removeScratch(this.root, dir, this.git);
  }

  private async drop(): Promise<void> {
    const c = this.checkout;
    this.checkout = null;
    if (c) await removeScratch(this.root, c, this.git);
  }
}

/** Removes scratch checkouts (a folder of them, or one) and git's record of them; never fails. */
export async function removeScratch(root: string, scratch: string, ctx: GitEnvOptions): Promise<void> {
  await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  await git(['worktree', 'prune'], { ...ctx, cwd: root, allowFail: true }).catch(() => undefined);
}

/** Removes scratch folders (and git's records of them) of workers whose process is gone; never fails. */
async function sweep(root: string, ctx: GitEnvOptions): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const n of names) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(n)?.[1]);
    if (pid && pid !== process.pid && !isProcessAlive(pid)) await removeScratch(root, join(tmpdir(), n), ctx);
  }
}
