// Fencing tokens (issue 12): the storage's own guard against a host that lost an agent's lease
// while paused (SIGSTOP, a laptop asleep) and wakes up to write for it. Each time a host takes
// an agent on, it writes a fence with the next epoch and the transcript's size at that moment
// (.team/fences/<name>.json, docs/file-formats.md "Fences"). Writers carry their epoch:
// - a transcript line or a cursor move is refused when a later fence exists (FencedError);
// - a line that slipped in anyway (its writer frozen between the check and the append) is
//   stale — after a fence of a later epoch — and every reader skips it;
// - a stored cursor written under an earlier epoch than the last fence is ignored.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Fence, FenceFile } from '../../shared/schemas/fences';
import { readJsonRecord, writeJsonAtomic } from '../util/atomic-file';
import { assertParticipantName } from '../util/names';
import type { TeamPaths } from './paths';
import { sameStamp, stampOf, type Stamp } from './task-view';

const KEEP = 32;

export { Fence };

export class FencedError extends Error {
  constructor(readonly agent: string, readonly epoch: number, readonly by: Fence) {
    super(`${agent} is run by host ${by.host} now (epoch ${by.epoch} after ${epoch}); this host may not write for it`);
  }
}

/** Whether a line at `offset` written under `epoch` came after a fence of a later epoch. */
export function isStale(fences: readonly Fence[], offset: number, epoch: number | undefined): boolean {
  return fences.some((f) => f.at <= offset && f.epoch > (epoch ?? 0));
}

export function latestEpoch(fences: readonly Fence[]): number {
  return fences.reduce((m, f) => Math.max(m, f.epoch), 0);
}

export class Fences {
  private readonly cache = new Map<string, { stamp: Stamp; fences: Fence[] }>();

  constructor(private readonly paths: TeamPaths) {}

  private file(name: string): string {
    return join(this.paths.teamDir, 'fences', `${assertParticipantName(name)}.json`);
  }

  /** The fences of `name`'s transcript, oldest first (read again only when the file changed). */
  async list(name: string): Promise<Fence[]> {
    const path = this.file(name);
    const s = await stampOf(path);
    if (!s) return [];
    const c = this.cache.get(name);
    if (c && sameStamp(c.stamp, s)) return c.fences;
    const fences = (await readJsonRecord(path, FenceFile))?.fences ?? [];
    this.cache.set(name, { stamp: s, fences });
    return fences;
  }

  /**
   * Sets a new fence for `name` as `host` takes it on (its lease already taken), and returns
   * its epoch: from now on writes under an earlier epoch are refused or skipped.
   */
  async open(name: string, host: string): Promise<number> {
    const fences = await this.list(name);
    const at = (await stat(this.paths.transcript(name)).catch(() => null))?.size ?? 0;
    const epoch = latestEpoch(fences) + 1;
    await writeJsonAtomic(this.file(name), { fences: [...fences, { epoch, host, at, ts: Date.now() / 1000 }].slice(-KEEP) });
    return epoch;
  }

  /** Throws FencedError when a host took `name` on after the writer with `epoch` did. */
  async check(name: string, epoch: number): Promise<void> {
    const fences = await this.list(name);
    const last = fences[fences.length - 1];
    if (last && last.epoch > epoch) throw new FencedError(name, epoch, last);
  }
}
