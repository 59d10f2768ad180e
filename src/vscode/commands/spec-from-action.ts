// A VS Code command derived from a user action of the session (core/session/actions): the
// command adds its id and title, the questions asked for missing arguments, how a tree row
// maps to the arguments, and what the window shows or returns after it ran.
import type { Action } from '../../core/session';
import type { CommandContext } from './command-context';
import type { CommandSpec, Field } from './command-spec';
import type { TreeNode } from '../views/nodes';

export interface ActionSpecWords<A, R> {
  id: string;
  title: string;
  fields: Field[];
  /** Runs agents: refused in Restricted Mode before anything is asked. */
  runsAgents?: boolean;
  /** Starts this window's agents first (the action needs them). */
  startsAgents?: boolean;
  fromNode?(node: TreeNode): Record<string, unknown> | undefined;
  /** What the window says after, and what the command returns (default: the result). */
  after?(r: R, a: A, ctx: CommandContext): unknown;
}

export function actionSpec<A, R>(action: Action<A, R>, w: ActionSpecWords<A, R>): CommandSpec {
  return {
    id: w.id, title: w.title, fields: w.fields, runsAgents: w.runsAgents, fromNode: w.fromNode,
    schema: action.args as CommandSpec['schema'],
    run: (async (a: A, ctx: CommandContext) => {
      if (w.startsAgents) await ctx.agents();
      const r = await action.run(ctx.scope, a);
      return w.after ? w.after(r, a, ctx) : r;
    }) as CommandSpec['run'],
  };
}
