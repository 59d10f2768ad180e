// A subcommand derived from a user action of the session (core/session/actions): the CLI adds
// its words, flags and usage line, how the command line becomes the action's arguments, and
// its own wording of the result where it differs from the action's.
import { ACTIONS, parseArgs, sessionScope, type Action, type ActionScope } from '../core/session';
import type { OptionSpec } from './args';
import type { Command } from './command';
import type { CommandContext } from './context';

export interface CliActionSpec<A, R> {
  words: string[];
  synopsis: string;
  /** Default: the action's summary. */
  summary?: string;
  options: OptionSpec;
  /** The command line → the action's arguments (usage mistakes throw UsageError here). */
  args(ctx: CommandContext): A | Promise<A>;
  /** The --json form (default: the result). */
  json?(r: R, a: A): unknown;
  /** The text form (default: the action's `describe`). */
  text?(r: R, a: A): string;
  /** Prints the result itself, --json included (a conflict to stderr, a patch raw). */
  print?(ctx: CommandContext, r: R, a: A): void;
  /** The exit code (default 0). */
  exit?(r: R): number;
  /** Work this process goes on with after the action (queue add --wait); its exit code replaces `exit`'s. */
  then?(ctx: CommandContext, r: R, a: A): Promise<number | undefined>;
  /** This interface's words for a refusal (its flags in the advice). */
  failure?(err: unknown, a: A): unknown;
}

/** The session scope of a subcommand: its team is created only after the action's checks. */
export function cliScope(ctx: CommandContext): ActionScope {
  return sessionScope(ctx.session, { git: { env: ctx.io.env } });
}

export function actionCommand<A, R>(action: Action<A, R>, spec: CliActionSpec<A, R>): Command {
  return {
    words: spec.words, synopsis: spec.synopsis, summary: spec.summary ?? action.summary, options: spec.options,
    async run(ctx) {
      const a = parseArgs(action, await spec.args(ctx));
      let r: R;
      try {
        r = await action.run(cliScope(ctx), a);
      } catch (err) {
        throw spec.failure?.(err, a) ?? err;
      }
      const more = await spec.then?.(ctx, r, a);
      if (more !== undefined) return more;
      if (spec.print) spec.print(ctx, r, a);
      else ctx.emit(spec.json ? spec.json(r, a) : r, () => (spec.text ?? action.describe)(r, a));
      return spec.exit?.(r) ?? 0;
    },
  };
}

export { ACTIONS };
