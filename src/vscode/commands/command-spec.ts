// The shape of one command (see command-table.ts for the table): its argument object's
// fields in order — each with the question asked when the field is missing — the zod schema
// that validates the object, how a tree element maps to it, and what it runs.
import type { z } from 'zod';
import type { CommandContext } from './command-context';
import type { TreeNode } from '../views/nodes';
import type { Asked } from './questions';

export interface Field {
  key: string;
  /** Optional fields are asked only when the command ran without any argument object. */
  optional?: boolean;
  ask(ctx: CommandContext, sofar: Record<string, unknown>): Promise<Asked<unknown>>;
}

export interface CommandSpec {
  id: string;
  title: string;
  fields: Field[];
  schema: z.ZodType<Record<string, unknown>>;
  /** Runs agents: refused in Restricted Mode before anything is asked. */
  runsAgents?: boolean;
  fromNode?(node: TreeNode): Record<string, unknown> | undefined;
  run(args: never, ctx: CommandContext): Promise<unknown>;
}

/** A spec whose `run` is typed by its schema. */
export function spec<S extends z.ZodType<Record<string, unknown>>>(
  s: Omit<CommandSpec, 'schema' | 'run'> & { schema: S; run(args: z.infer<S>, ctx: CommandContext): Promise<unknown> },
): CommandSpec {
  return s as unknown as CommandSpec;
}
