// What a subcommand handler gets: its arguments, output helpers and the team session (no
// agents run in a subcommand), opened lazily. Read-only commands open the team without
// creating `.team/` or `.tasks/`, so `agent-teams tasks` in the wrong folder leaves no trace.
import { TeamSession, type TeamView } from '../core/session';
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
      worktreeGit: {
        env, onReport: (r) => reconcileWarnings(r).forEach((w) => writeLine(stderr, `agent-teams: warning: ${w}`)),
      },
    });
    return this.opened;
  }

  /** The team's read models over `root` (its folder checked first; nothing is created). */
  async view(): Promise<TeamView> {
    if (!this.checked) {
      await this.session.checkFolder();
      this.checked = true;
    }
    return this.session.view;
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
