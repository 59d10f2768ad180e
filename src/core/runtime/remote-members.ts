// What a runner knows of the teammates it does not run: which other live host runs each
// (shown as `remote` activity), and which it held back under agentTeams.maxTeammates (told
// once each; they stay on the roster as they were).
import type { RuntimeEvent } from './types';

export class RemoteMembers {
  private readonly hosts = new Map<string, string>();
  private readonly heldBack = new Set<string>();

  constructor(private readonly emit: (e: RuntimeEvent) => void, private readonly maxTeammates: () => number) {}

  /** The other host that runs `name`, if known. */
  hostOf(name: string): string | undefined {
    return this.hosts.get(name);
  }

  /** `name` is run by `host` now; its activity says so (once per change). */
  mark(name: string, host: string, quiet = false): void {
    if (this.hosts.get(name) === host) return;
    this.hosts.set(name, host);
    if (!quiet) this.emit({ type: 'activity', agent: name, activity: { kind: 'remote', host } });
  }

  /** `name` runs here now. */
  forget(name: string): void {
    this.hosts.delete(name);
  }

  /** `name` was not resumed: maxTeammates already run. */
  holdBack(name: string): void {
    if (this.heldBack.has(name)) return;
    this.heldBack.add(name);
    this.emit({
      type: 'notice', level: 'warning', agent: name,
      message: `${name} is not resumed: ${this.maxTeammates()} teammates already run (agentTeams.maxTeammates). It resumes when one stops or the limit is raised.`,
    });
  }
}
