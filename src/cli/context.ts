// What a subcommand handler gets: its arguments, output helpers and the team, opened
// lazily. Read-only commands open the team without creating `.team/` or `.tasks/`, so
// `agent-teams tasks` in the wrong folder leaves no trace there.
import { Team } from '../core/team/team';
import type { OptionValues } from './args';
import { writeLine, type CliIo } from './io';

export class CommandContext {
  private team: Team | null = null;

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

  /** The team over `root`; `write` creates the directory layout first. */
  async open(write: boolean): Promise<Team> {
    if (!this.team) {
      const team = new Team(this.root);
      await team.checkFolder();
      this.team = team;
    }
    if (write) await this.team.init();
    return this.team;
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
    this.team?.dispose();
  }
}
