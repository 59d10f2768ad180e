// The shape of one user action (ARCHITECTURE.md "The action table"): its id, its zod
// arguments, what it runs on the session and how it describes its result. Each host
// derives its own form from the definition — a VS Code command (src/vscode/commands/command-table.ts),
// a CLI subcommand (src/cli/commands.ts), a REPL slash command (src/cli/repl-commands.ts) —
// adding only its wording: titles, questions, usage lines, flags.
import { z } from 'zod';
import type { Team } from '../../team/team';
import type { GitEnvOptions } from '../../worktree/git';
import { partsOf } from '../parts';
import type { TeamSession } from '../team-session';

/** Where an action runs: the session, and how this host opens the team for writing. */
export interface ActionScope {
  readonly session: TeamSession;
  /**
   * The team with its folders created, once `check` passed over what is there already: an
   * action refused (unknown recipient, task or request) leaves no empty `.team/`, which a
   * VS Code window would take for a team.
   */
  openTeam(check?: (team: Team) => Promise<unknown>): Promise<Team>;
  /**
   * Asks the user a yes/no question mid-action (commit the uncommitted work first? delete
   * anyway?). Hosts that cannot ask leave it out, and the action refuses with the reason.
   */
  ask?(q: Question): Promise<boolean>;
  /** How git runs for the worktree actions (the CLI passes its environment). */
  readonly git?: GitEnvOptions;
}

export interface Question {
  text: string;
  detail?: string;
  /** The word of the button that says yes. */
  yes: string;
}

/** A refusal of the action itself (unknown task, nobody to broadcast to): said as it is. */
export class ActionError extends Error {}

export interface Action<A = unknown, R = unknown> {
  /** Stable id (`send`, `worktreeRemove`): what hosts name the action by. */
  readonly id: string;
  /** One line for help texts. */
  readonly summary: string;
  /** The arguments, validated before `run` in every host. */
  readonly args: z.ZodType<A, unknown>;
  run(scope: ActionScope, args: A): Promise<R>;
  /** The result in words (hosts may say it their own way). */
  describe(result: R, args: A): string;
}

export function defineAction<S extends z.ZodType, R>(a: {
  id: string; summary: string; args: S;
  run(scope: ActionScope, args: z.output<S>): Promise<R>;
  describe(result: R, args: z.output<S>): string;
}): Action<z.output<S>, R> {
  return a as Action<z.output<S>, R>;
}

/** Validates `raw` with the action's schema; the message names each bad field. */
export function parseArgs<A>(action: Action<A, unknown>, raw: unknown): A {
  const r = action.args.safeParse(raw);
  if (r.success) return r.data;
  throw new ActionError(r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')} ${i.message}` : i.message)).join('; '));
}

/** Runs `action` with `raw` arguments (validated first). */
export function runAction<A, R>(action: Action<A, R>, scope: ActionScope, raw: unknown): Promise<R> {
  try {
    return action.run(scope, parseArgs(action, raw));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** How a host runs the session's actions: its way to ask, its git, its way to open the team. */
export interface ScopeOptions {
  /** Opens the team for writing once the checks passed (default: its folders are created, once). */
  ready?(): Promise<unknown>;
  ask?(q: Question): Promise<boolean>;
  git?: GitEnvOptions;
}

/** A host's scope over `session`: the folder is checked, then the action's check, then the team is opened. */
export function sessionScope(session: TeamSession, opts: ScopeOptions = {}): ActionScope {
  let made: Promise<unknown> | undefined;
  const ready = opts.ready ?? (() => (made ??= session.initTeam()));
  return {
    session,
    ...(opts.ask ? { ask: (q: Question) => opts.ask!(q) } : {}),
    ...(opts.git ? { git: opts.git } : {}),
    async openTeam(check) {
      const { team } = partsOf(session);
      await team.checkFolder();
      await check?.(team);
      await ready();
      return team;
    },
  };
}

// ── argument pieces several actions share ──
/** Text that says something (kept as typed: a message's spacing is the sender's). */
export const Text = z.string().refine((s) => s.trim().length > 0, 'must not be empty');
export const RequestId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a request id');
export const TaskId = z.coerce.number().int().positive();
