// What a subcommand handler gets: its arguments, output helpers and the team session (no
// agents run in a subcommand), opened lazily. Read-only commands open the team without
// creating `.team/` or `.tasks/`, so `agent-teams tasks` in the wrong folder leaves no trace.
import { type Team, TeamSession, WorktreeManager } from '../core/session';
import type { OptionValues } from './args';
import { reconcileWarnings } from './worktree-format';
import { writeLine, type CliIo } from './io';

export class CommandContext {
  private opened: TeamSession | null = null;
  private checked = false;

  constructor(
    readonly io: CliIo,
    readonly root: string,
    /** Positional words after the command's own words. */
    readonly args: string[],
    readonly opts: OptionValues,
    readonly usage: string,
  ) {}

  get json(): boolean {
    return this.opts.json === true;
  }

  /** The session over `root`; its worktrees run git with this process's environment. */
  get session(): TeamSession {
    const { env, stderr } = this.io;
    this.opened ??= new TeamSession({
      root: this.root,
      worktrees: new WorktreeManager(this.root, {
        env, onReport: (r) => reconcileWarnings(r).forEach((w) => writeLine(stderr, `agent-teams: warning: ${w}`)),
      }),
    });
    return this.opened;
  }

  /** The team over `root`; `write` creates the directory layout first. */
  async open(write: boolean): Promise<Team> {
    const team = this.session.team;
    if (!this.checked) {
      await team.checkFolder();
      this.checked = true;
    }
    if (write) await team.init();
    return team;
  }

  out(text: string): void {
    writeLine(this.io.stdout, text);
  }

  /** Pretty-printed JSON: readable in a terminal, and one `jq` away from anything else. */
  outJson(value: unknown): void {
    writeLine(this.io.stdout, JSON.stringify(value, null, 2));
  }

  /** Prints the JSON form with --json, else the text form. */
  emit(value: unknown, text: () => string): void {
    if (this.json) this.outJson(value);
    else this.out(text());
  }

  dispose(): void {
    void this.opened?.dispose();
  }
}
