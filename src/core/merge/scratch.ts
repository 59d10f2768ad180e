// The merge queue's scratch checkout (docs/file-formats.md, "Merge queue"): where each
// entry's test runs, apart from the user's checkout. One detached `git worktree` in a temporary
// folder, made at a worker's first test, moved from merge commit to merge commit, emptied of
// what the last test left after each entry, and removed once the queue has been idle a while
// (QueueWorker's lingerMs) or the worker stops. The folder's name holds the worker's process
// id: one left by a host that died is removed by the next worker that makes one.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../util/process-alive';
import { cleanScratch, moveScratch, removeScratch, scratchCheckout, type QueueGit } from './integrate';

const PREFIX = 'agent-teams-merge-';

export class ScratchCheckout {
  /** The temporary folder (written in the entry being tested: a host that goes away leaves it for the next to remove). */
  private dir: string | null = null;
  private checkout: string | null = null;
  /** Removing what the last test left: done before the checkout is used again. */
  private cleaning: Promise<void> = Promise.resolve();
  /** A removal in progress: a new checkout waits for it. */
  private releasing: Promise<void> = Promise.resolve();
  private swept: Promise<void> | null = null;

  constructor(private readonly root: string, private readonly git: QueueGit) {}

  /** The folder the checkout is in, made now if need be. */
  async folder(): Promise<string> {
    this.swept ??= sweep(this.root, this.git);
    this.dir ??= await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    return this.dir;
  }

  /** Whether `dir` is this worker's folder (an entry naming it is not litter). */
  owns(dir: string): boolean {
    return dir === this.dir;
  }

  /** The checkout at `commit`, moved there (what the last test left removed first) or made. */
  async at(top: string, commit: string, g: QueueGit): Promise<string> {
    const folder = await this.folder();
    await this.cleaning;
    await this.releasing;
    if (this.checkout && (await moveScratch(this.checkout, commit, g))) return this.checkout;
    if (this.checkout) await rm(this.checkout, { recursive: true, force: true });
    const dir = join(folder, `checkout-${randomBytes(3).toString('hex')}`);
    await scratchCheckout(top, dir, commit, g);
    this.checkout = dir;
    return dir;
  }

  /** Removes what a test left in `checkout`, in the background (the next `at` waits for it). */
  clean(checkout: string, g: QueueGit): void {
    this.cleaning = cleanScratch(checkout, g);
  }

  /** Removes the checkout and its folder (a later `at` makes a new one). */
  release(): Promise<void> {
    const dir = this.dir;
    [this.dir, this.checkout] = [null, null];
    const cleaning = this.cleaning;
    this.releasing = this.releasing.then(async () => {
      await cleaning;
      if (dir) await removeScratch(this.root, dir, this.git);
    });
    return this.releasing;
  }
}

/** Removes scratch folders (and git's records of them) of workers whose process is gone; never fails. */
async function sweep(root: string, ctx: QueueGit): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const n of names) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(n)?.[1]);
    if (pid && pid !== process.pid && !isProcessAlive(pid)) await removeScratch(root, join(tmpdir(), n), ctx);
  }
}
