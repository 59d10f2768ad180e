// The merge queue's scratch checkout (docs/file-formats.md, "Merge queue"): where each
// entry's test runs, apart from the user's checkout. One detached `git worktree` in a temporary
// folder, made at a worker's first test, moved from merge commit to merge commit, emptied of
// what the last test left after each entry, and removed once the queue has been idle a while
// (QueueWorker's lingerMs) or the worker stops. Its git runs in a shell of its own, so it is
// emptied and moved to the next entry's merge while the entry before lands. The folder's name
// holds the worker's process id: one left by a host that died is removed by the next worker
// that makes one.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../util/process-alive';
import { GitShell } from './git-shell';
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
  /** The commit the checkout is at (null: unknown, moved before use). */
  private head: string | null = null;
  /** A move started ahead (preload): `at` waits for it first. */
  private moving: Promise<unknown> = Promise.resolve();
  private shell: GitShell | null = null;
  /** Handed to a test since it was last emptied. */
  private used = false;

  constructor(private readonly root: string, private readonly git: QueueGit) {}

  private get g(): QueueGit {
    this.shell ??= new GitShell(this.git);
    return { ...this.git, run: this.shell.run };
  }

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
  async at(top: string, commit: string): Promise<string> {
    await this.moving.catch(() => undefined);
    const dir = await this.moveTo(top, commit);
    this.used = true;
    return dir;
  }

  private async moveTo(top: string, commit: string): Promise<string> {
    const folder = await this.folder();
    await this.cleaning;
    await this.releasing;
    if (this.checkout && this.head === commit) return this.checkout;
    this.head = null;
    if (this.checkout && (await moveScratch(this.checkout, commit, this.g))) {
      this.head = commit;
      return this.checkout;
    }
    if (this.checkout) await rm(this.checkout, { recursive: true, force: true });
    const dir = join(folder, `checkout-${randomBytes(3).toString('hex')}`);
    await scratchCheckout(top, dir, commit, this.g);
    [this.checkout, this.head] = [dir, commit];
    return dir;
  }

  /** Moves the checkout to the commit `next` resolves to (when it does), ahead of the `at` that will ask for it. */
  preload(top: string, next: Promise<string | null>): void {
    const before = this.moving;
    this.moving = (async () => {
      await before.catch(() => undefined);
      const commit = await next;
      if (commit && this.checkout) await this.moveTo(top, commit);
    })().catch(() => undefined);
  }

  /** Removes what a test left in the checkout, in the background (the next `at` waits for it); once per test. */
  clean(): void {
    if (!this.checkout || !this.used) return;
    [this.used, this.head] = [false, null];
    this.cleaning = cleanScratch(this.checkout, this.g);
  }

  /** Removes the checkout and its folder (a later `at` makes a new one). */
  release(): Promise<void> {
    const [dir, shell, moving] = [this.dir, this.shell, this.moving];
    [this.dir, this.checkout, this.head, this.shell] = [null, null, null, null];
    const cleaning = this.cleaning;
    this.releasing = this.releasing.then(async () => {
      await moving.catch(() => undefined);
      await cleaning;
      if (dir) await removeScratch(this.root, dir, this.git);
      await shell?.dispose();
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
