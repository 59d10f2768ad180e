// The roster (.team/config.json): who is on the team and in what state. Every change is a
// read-modify-write under a cross-process lock, written atomically, unknown fields kept.
import { basename } from 'node:path';
import { stat } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import type { Member, MemberStatus, TeamConfig } from '../../shared/schemas';
import { quarantine, writeJsonAtomic } from '../util/atomic-file';
import { reportProblem } from '../util/problems';
import { parseRoster } from './roster-parse';
import { withFileLock } from '../util/file-lock';
import { assertTeammateName } from '../util/names';
import type { TeamPaths } from './paths';

export class RosterError extends Error {}

export class Roster {
  private cache: { sig: string; config: TeamConfig } | null = null;

  constructor(private readonly paths: TeamPaths) {}

  private defaultConfig(): TeamConfig {
    return { team_name: basename(this.paths.root) || 'team', members: [] };
  }

  /**
   * Current roster; cached by file identity so hot paths (every send) stay cheap. A read
   * never moves or rewrites the file: members that are not valid teammates are reported
   * and left out, and an unreadable file reads as an empty team until a write moves it
   * aside (docs/file-formats.md, "Corrupt files").
   */
  async read(): Promise<TeamConfig> {
    const s = await stat(this.paths.config).catch(() => null);
    if (!s) return this.defaultConfig();
    const sig = `${s.ino}:${s.size}:${s.mtimeMs}`;
    if (this.cache?.sig === sig) return this.cache.config;
    const text = await readFile(this.paths.config, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (text === null) return this.defaultConfig();
    const r = parseRoster(text, this.paths.config);
    if (!r.ok) {
      reportProblem({ path: this.paths.config, message: `${r.error}; the team reads as empty until it is fixed (a change moves it aside)` });
      return this.defaultConfig();
    }
    this.cache = { sig, config: r.config };
    return r.config;
  }

  async list(): Promise<Member[]> {
    return (await this.read()).members;
  }

  async get(name: string): Promise<Member | undefined> {
    return (await this.read()).members.find((m) => m.name === name);
  }

  /** Applies `change` to a fresh copy of the roster under the lock and writes the result. */
  async update<T>(change: (config: TeamConfig) => T): Promise<T> {
    return withFileLock(`${this.paths.config}.lock`, async (stillOurs) => {
      const text = await readFile(this.paths.config, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      const r = text === null ? null : parseRoster(text, this.paths.config);
      // Writing over an unreadable roster would lose it: it is moved aside first.
      if (r && !r.ok) await quarantine(this.paths.config, r.error);
      const config = r?.ok ? r.config : this.defaultConfig();
      const kept = r?.ok ? r.invalid : [];
      const result = change(config);
      // Entries we cannot run (a name outside our rule, a reserved name) stay as they were.
      // Read before this process was stopped and its lock taken, it would undo another's
      // change: checked just before it replaces the file.
      await writeJsonAtomic(this.paths.config, { ...config, members: [...config.members, ...kept] }, stillOurs);
      this.cache = null;
      return result;
    });
  }

  /**
   * Adds a teammate, or re-spawns one that is idle or shut down (its incarnation goes up,
   * which expires protocol requests addressed to the earlier one). A working teammate
   * cannot be spawned again.
   */
  async spawn(name: string, role: string, extra: Partial<Member> = {}): Promise<Member> {
    assertTeammateName(name);
    return this.update((config) => {
      const existing = config.members.find((m) => m.name === name);
      if (existing) {
        if (existing.status === 'working') throw new RosterError(`${name} is already working`);
        Object.assign(existing, extra, {
          role,
          status: 'working' as const,
          incarnation: (existing.incarnation ?? 1) + 1,
        });
        return { ...existing };
      }
      const member: Member = { ...extra, name, role, status: 'working', incarnation: 1 };
      config.members.push(member);
      return { ...member };
    });
  }

  /** Merges `fields` into a member; throws RosterError for an unknown name. */
  async patch(name: string, fields: Partial<Member>): Promise<Member> {
    return this.update((config) => {
      const m = config.members.find((x) => x.name === name);
      if (!m) throw new RosterError(`unknown teammate "${name}"`);
      Object.assign(m, fields, { name: m.name });
      return { ...m };
    });
  }

  setStatus(name: string, status: MemberStatus): Promise<Member> {
    return this.patch(name, { status });
  }

  async setTeamName(teamName: string): Promise<void> {
    await this.update((c) => {
      c.team_name = teamName;
    });
  }
}
