// A slash command derived from a user action of the session (core/session/actions): the
// REPL adds its usage line, how the typed words become the action's arguments, and its
// wording of the result where it differs from the action's.
import { parseArgs, sessionScope, type Action, type ActionScope, type TeamSession } from '../core/session';
import type { ReplHost, SlashCommand } from './repl-host';

export interface SlashActionSpec<A, R> {
  usage: string;
  /** Default: the action's summary. */
  summary?: string;
  /** The words after the command → the action's arguments (ReplUsageError for a typing mistake). */
  args(words: string[], host: ReplHost, usage: string): A | Promise<A>;
  /** What to print (default: the action's `describe`); an empty list prints nothing. */
  text?(r: R, a: A, host: ReplHost, words: string[]): string | string[];
  /** This interface's words for a refusal (its commands in the advice). */
  failure?(err: unknown, a: A): unknown;
}

const scopes = new WeakMap<TeamSession, ActionScope>();

/** The session's scope for slash commands: one per session, so its folders are made once. */
export function replScope(rt: TeamSession): ActionScope {
  let s = scopes.get(rt);
  if (!s) scopes.set(rt, (s = sessionScope(rt)));
  return s;
}

export function slashAction<A, R>(action: Action<A, R>, spec: SlashActionSpec<A, R>): SlashCommand {
  return {
    usage: spec.usage,
    summary: spec.summary ?? action.summary,
    async run(words, host) {
      const a = parseArgs(action, await spec.args(words, host, spec.usage));
      let r: R;
      try {
        r = await action.run(replScope(host.rt), a);
      } catch (err) {
        throw spec.failure?.(err, a) ?? err;
      }
      const text = spec.text ? spec.text(r, a, host, words) : action.describe(r, a);
      for (const line of Array.isArray(text) ? text : [text]) host.print(line);
    },
  };
}
