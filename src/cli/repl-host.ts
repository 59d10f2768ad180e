// What a session slash command gets (the team session, a way to print, a way to quit) and the
// error it throws for a usage mistake, apart from the command tables that use them.
import type { TeamSession } from '../core/session';

export interface ReplHost {
  readonly rt: TeamSession;
  print(text: string): void;
  quit(): Promise<void>;
}

export interface SlashCommand {
  usage: string;
  summary: string;
  run(args: string[], host: ReplHost): Promise<void>;
}

/** A mistake in how the command was typed: printed as is, without "error:". */
export class ReplUsageError extends Error {}
