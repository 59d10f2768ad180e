// A full disk pauses agents instead of crashing them: nothing is acknowledged before it is
// written (mail cursors move only after the transcript line that delivered the mail), so an
// agent that hits ENOSPC waits here, re-reads its conversation as the disk holds it, and
// goes on by itself once a probe write in the team folder succeeds again.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Team } from '../team/team';
import { writeFileAtomic } from '../util/atomic-file';
import { isDiskFull } from '../util/io-faults';
import type { RuntimeEvent } from './types';

export interface DiskPauseHost {
  readonly team: Team;
  emit(e: RuntimeEvent): void;
}

/** Per host: whether the user has been told of the current outage (one notice, not one per agent). */
const told = new WeakMap<DiskPauseHost, boolean>();
const PROBE_EVERY_MS = 2000;

/** Waits until writes succeed again or `stopped()`; the first agent to pause tells the user. */
export async function waitForDisk(host: DiskPauseHost, err: unknown, stopped: () => boolean, everyMs = PROBE_EVERY_MS): Promise<void> {
  if (!told.get(host)) {
    told.set(host, true);
    host.emit({
      type: 'notice', level: 'error',
      message: `disk full: ${(err as Error).message}. The agents are paused and nothing is lost; they go on by themselves once there is room again.`,
    });
  }
  const probe = join(host.team.paths.teamDir, '.disk-probe');
  while (!stopped()) {
    await new Promise((r) => setTimeout(r, everyMs));
    try {
      await writeFileAtomic(probe, 'ok\n');
      await unlink(probe).catch(() => undefined);
      break;
    } catch (e) {
      if (!isDiskFull(e)) break;
    }
  }
  if (told.get(host) && !stopped()) {
    told.set(host, false);
    host.emit({ type: 'notice', level: 'info', message: 'The disk has room again: paused agents go on.' });
  }
}
