// The process groups this host started for its agents (bash commands, background jobs),
// recorded one file each in `.team/processes/` while they run, so that a host taking over
// from one killed with -9 can kill what that host left running — and nothing else: a group
// is killed only when its leader still carries the recorded start time (field 22 of
// /proc/<pid>/stat) on the same boot, so a reused pid never costs a stranger its processes.
// See docs/file-formats.md, "Process records". Without /proc (macOS, Windows) nothing is
// recorded and nothing is swept.
import { readdir, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ProcessRecord } from '../../shared/schemas';
import { writeJsonAtomic } from '../util/atomic-file';
import { procStat, type ProcStat } from '../util/process-alive';
import { DEFAULT_KILL_GRACE_MS, killGroup, type GroupLedger } from './process-group';

export { procStat };

let boot: Promise<string | null> | undefined;
/** The kernel's boot id: start times count from boot, so they compare only within one. */
export function bootId(): Promise<string | null> {
  boot ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((s) => s.trim() || null, () => null);
  return boot;
}

let self: Promise<ProcStat | null> | undefined;
function selfStat(): Promise<ProcStat | null> {
  self ??= procStat(process.pid);
  return self;
}

export class ProcessLedger implements GroupLedger {
  constructor(private readonly dir: string, private readonly hostId: string) {}

  /** Records group `pgid` (just spawned); the returned function removes the record once the group is gone. */
  record(agent: string, pgid: number, command: string, kind: 'bash' | 'job'): () => Promise<void> {
    const written = this.write(agent, pgid, command, kind).catch(() => null);
    return async () => {
      const file = await written;
      if (file) await unlink(file).catch(() => undefined);
    };
  }

  private async write(agent: string, pgid: number, command: string, kind: 'bash' | 'job'): Promise<string | null> {
    const [b, me, leader] = await Promise.all([bootId(), selfStat(), procStat(pgid)]);
    // Gone already (nothing to leave behind), or no /proc to tell it apart from a stranger later.
    if (!b || !me || !leader || leader.pgrp !== pgid) return null;
    const rec: ProcessRecord = {
      pgid, start: leader.start, boot: b, agent, kind, command: command.slice(0, 500), started_at: Date.now() / 1000,
      host: { id: this.hostId, pid: process.pid, start: me.start, hostname: hostname() },
    };
    const file = join(this.dir, `${pgid}-${leader.start}.json`);
    await writeJsonAtomic(file, rec);
    return file;
  }
}

/** Whether the host that wrote `r` is gone: its pid dead, or alive as another process. */
async function hostGone(r: ProcessRecord, myBoot: string): Promise<'alive' | 'gone' | 'rebooted' | 'elsewhere'> {
  if (r.host.hostname !== hostname()) return 'elsewhere';
  if (r.boot !== myBoot) return 'rebooted';
  const h = await procStat(r.host.pid);
  return h && h.start === r.host.start ? 'alive' : 'gone';
}

export interface SweptGroup {
  agent: string;
  command: string;
  kind: 'bash' | 'job';
}

/**
 * Kills the process groups recorded by hosts on this machine that are gone, each only if its
 * leader is still the process that was recorded, and removes their records. Records of live
 * hosts and of other machines are left alone; those from before a reboot are removed.
 */
export async function sweepOrphans(dir: string, graceMs = DEFAULT_KILL_GRACE_MS): Promise<SweptGroup[]> {
  const myBoot = await bootId();
  if (!myBoot) return [];
  const names = await readdir(dir).catch(() => [] as string[]);
  const killed: SweptGroup[] = [];
  await Promise.all(names.filter((n) => n.endsWith('.json')).map(async (n) => {
    const file = join(dir, n);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) return;
    let parsed: ReturnType<typeof ProcessRecord.safeParse>;
    try {
      parsed = ProcessRecord.safeParse(JSON.parse(text));
    } catch {
      parsed = { success: false } as typeof parsed;
    }
    // Half a record (its writer killed mid-write is impossible with temp + rename, but a
    // hand edit is not): nothing in it can be verified, so nothing is killed.
    if (!parsed.success) {
      await unlink(file).catch(() => undefined);
      return;
    }
    const r = parsed.data;
    const host = await hostGone(r, myBoot);
    if (host === 'alive' || host === 'elsewhere') return;
    if (host === 'gone') {
      const leader = await procStat(r.pgid);
      if (leader && leader.start === r.start && leader.pgrp === r.pgid) {
        await killGroup(r.pgid, graceMs);
        killed.push({ agent: r.agent, command: r.command, kind: r.kind });
      }
    }
    await unlink(file).catch(() => undefined);
  }));
  return killed;
}
