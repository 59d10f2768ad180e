// One subcommand of `agent-teams`: its words, options, usage line and handler (commands.ts
// holds the table; action-command.ts derives most write commands from the session's actions).
import type { OptionSpec } from './args';
import type { CommandContext } from './context';

export interface Command {
  words: string[];
  /** Arguments and options after the words, for the usage line. */
  synopsis: string;
  summary: string;
  /** More lines for `<command> --help` (options explained, examples), when the summary is not enough. */
  details?: string;
  options: OptionSpec;
  run(ctx: CommandContext): Promise<number>;
  /** A file it reads that could not be read (or was corrupt) makes it exit 1, output still printed: the listing is incomplete. */
  incompleteFails?: boolean;
}
