// What one agent tool is: the name the model sees, its description, its input schema, which
// agents are offered it, whether it changes the workspace, and its handler, in one place.
// A definition is written with `defineTool` (input as a zod schema, whose `.describe()`
// text the model reads) or `defineJsonTool` (input given as JSON Schema, as an MCP server
// hands it over); both come out as the same `ToolDefinition`, which is all a ToolSet needs.
import { z } from 'zod';
import type { Member } from '../../../shared/team-schemas';
import { toolFacts, type ToolFacts } from '../../../shared/tool-facts';
import type { JobManager } from '../../exec/jobs';
import type { ProcessRegistry } from '../../exec/process-group';
import type { WorkspaceFs } from '../../exec/workspace-fs';
import type { ModelTool } from '../../model';
import type { Team } from '../../team/team';
import type { MergeQueue } from '../../merge/merge-queue';
import type { WorktreeManager } from '../../worktree/manager';
import type { CommandSandbox } from '../../sandbox/sandbox';
import type { HookRunRecord, Hooks } from '../../hooks/hooks';
import type { Activity, Approver, RuntimeSettings, SpawnInput } from '../types';
import { leanSchema } from './lean-schema';

export type AgentKind = 'lead' | 'teammate';

/** The agent a tool runs for. */
export interface AgentHandle {
  readonly name: string;
  readonly kind: AgentKind;
  readonly fs: WorkspaceFs;
  readonly cwd: string;
  /** Where it works when no task binds it to a worktree. */
  readonly homeDir: string;
  readonly signal: AbortSignal;
  /** False while this agent's latest plan is not approved. */
  planGateOpen(): Promise<boolean>;
  /** Why a workspace-changing tool is refused now (plan mode, a plan awaiting approval), or null. */
  planRefusal(tool: string): Promise<string | null>;
  /** The shutdown was approved: end the phase after this round. */
  endAfterRound(reason: 'shutdown' | 'idle'): void;
  /** read_inbox consumed mail up to `cursor`; recorded with the next transcript entry. */
  noteInboxRead(cursor: number): void;
  inboxPosition(): number;
  setWorkdir(dir: string): void;
  /** Works in `dir` from its next reply on: the calls left in this reply still run where they were (docs/file-formats.md, "Tasks"). */
  moveAfterReply(dir: string): void;
  /** Names the current reply spawns (spawn_teammate calls): a task may name them as owner before they exist. */
  readonly spawnsInReply: ReadonlySet<string>;
  /** What the agent is doing, as the tree and the CLI show it. */
  setActivity(a: Activity): void;
  /**
   * A PreToolUse hook allowed the call being run (docs/hooks.md): a question the tool would
   * ask only by default (no rule decided) is skipped; deny and ask rules still apply.
   */
  readonly hookApproved?: boolean;
  /** Its transcript, where hook runs are written (docs/hooks.md). */
  readonly transcript?: { readonly path: string; note(e: HookRunRecord): Promise<void> };
}

/** What tools reach of the team and the host running the agent. */
export interface ToolHost {
  readonly team: Team;
  settings(): RuntimeSettings;
  readonly approver: Approver;
  readonly processes: ProcessRegistry;
  /** Background commands (bash with run_in_background). */
  readonly jobs: JobManager;
  /** How commands are started: in the sandbox, or why not (docs/security.md). */
  readonly sandbox: CommandSandbox;
  /** The folder's hooks (docs/hooks.md); absent where none may run. */
  readonly hooks?: Hooks;
  spawnTeammate(input: SpawnInput, by: string): Promise<Member>;
  /** Whether the lead is in a turn (for send_message's answer); absent where unknown. */
  leadBusy?(): boolean;
  /** Puts a running teammate into plan mode (docs/file-formats.md, "Plan mode"). */
  requestPlan(teammate: string, reason: string | null | undefined, by: string): Promise<Member>;
  /** The working folder of worktree `name`; a checkout made now is set up first, in `agent`'s transcript. */
  worktreeDir(name: string, agent?: string): Promise<string>;
  /** The teammates' git worktrees (the lead's worktree tools). */
  readonly worktrees: WorktreeManager;
  /** Why worktree `name` could not be created now, or null. */
  worktreeProblem(name: string): Promise<string | null>;
  /** Worktree branches on their way onto the workspace branch (queue_merge, merge on completion). */
  readonly mergeQueue: MergeQueue;
}

export interface ToolResult {
  text: string;
  isError: boolean;
}

export const ok = (text: string): ToolResult => ({ text, isError: false });
export const fail = (text: string): ToolResult => ({ text, isError: true });

/** The most output a tool hands back (bash caps its own at this; results at twice this). */
export const MAX_OUTPUT = 30_000;

type JsonSchemaObject = ModelTool['input_schema'];
type Parsed = { ok: true; data: unknown } | { ok: false; error: string };

interface Common {
  /** The name the model sees. Two definitions may share it when no agent has both. */
  readonly name: string;
  /** What the model reads about the tool. */
  readonly description: string;
  /** The agents offered the tool. */
  readonly agents: readonly AgentKind[];
  /** Kinds offered it only when their agent definition's `tools` list names it (a role that rarely needs it). */
  readonly optIn?: readonly AgentKind[];
  /**
   * Writes files or runs commands. Such tools are refused while the agent's plan awaits
   * approval (docs: plan approval in README.md), without each handler checking.
   */
  readonly changesWorkspace?: boolean;
}

type Handler<I> = (input: I, agent: AgentHandle, host: ToolHost) => Promise<ToolResult>;

/** One tool, whatever its schema was written in. */
export interface ToolDefinition extends Common {
  /** Everything else known about it: team-kept or workspace, Claude Code names, transcript heading (shared/tool-facts.ts). */
  readonly facts: ToolFacts;
  /** The JSON Schema the model is sent. */
  inputSchema(): JsonSchemaObject;
  /** Checks a call's input; the error names each bad field. */
  parse(input: unknown): Parsed;
  run: Handler<unknown>;
}

export interface ZodTool<S extends z.ZodType> extends Common {
  /** Optional fields should be `.nullish()`: models send null for them. */
  readonly input: S;
  /** Shortens the schema the model is sent where its description already says it (the input still checks everything). */
  readonly forModel?: (schema: JsonSchemaObject) => JsonSchemaObject;
  run: Handler<z.output<S>>;
}

export interface JsonTool extends Common {
  readonly inputSchema: JsonSchemaObject;
  run: Handler<Record<string, unknown>>;
}

export function defineTool<S extends z.ZodType>(def: ZodTool<S>): ToolDefinition {
  let schema: JsonSchemaObject | undefined;
  return {
    name: def.name, description: def.description, agents: def.agents, optIn: def.optIn, changesWorkspace: def.changesWorkspace, facts: toolFacts(def.name),
    inputSchema() {
      if (!schema) {
        const s = z.toJSONSchema(def.input, { io: 'input' }) as Record<string, unknown>;
        delete s.$schema;
        schema = leanSchema(s) as JsonSchemaObject;
        if (def.forModel) schema = def.forModel(schema);
      }
      return schema;
    },
    parse(input) {
      const r = def.input.safeParse(input);
      return r.success
        ? { ok: true, data: r.data }
        : { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
    },
    run: (input, a, h) => def.run(input as z.output<S>, a, h),
  };
}

/** A tool whose input is checked by whoever runs it (an MCP server validates its own). */
export function defineJsonTool(def: JsonTool): ToolDefinition {
  return {
    name: def.name, description: def.description, agents: def.agents, optIn: def.optIn, changesWorkspace: def.changesWorkspace, facts: toolFacts(def.name),
    inputSchema: () => def.inputSchema,
    parse: (input) => (input !== null && typeof input === 'object' && !Array.isArray(input)
      ? { ok: true, data: input }
      : { ok: false, error: 'input: expected an object' }),
    run: (input, a, h) => def.run(input as Record<string, unknown>, a, h),
  };
}
