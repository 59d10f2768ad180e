// What one agent tool is: the name the model sees, its description, its input schema, which
// agents are offered it, whether it changes the workspace, and its handler, in one place.
// A definition is written with `defineTool` (input as a zod schema, whose `.describe()`
// text the model reads) or `defineJsonTool` (input given as JSON Schema, as an MCP server
// hands it over); both come out as the same `ToolDefinition`, which is all a ToolSet needs.
import { z } from 'zod';
import type { Member } from '../../../shared/schemas';
import { toolFacts, type ToolFacts } from '../../../shared/tool-facts';
import type { JobManager } from '../../exec/jobs';
import type { ProcessRegistry } from '../../exec/process-group';
import type { AgentFs } from '../../exec/agent-fs';
import type { ModelTool } from '../../model';
import type { Team } from '../../team/team';
import type { MergeQueue } from '../../merge/merge-queue';
import type { WorktreeManager } from '../../worktree/manager';
import type { CommandSandbox } from '../../sandbox/sandbox';
import type { TeammateContainers } from '../../container/seats';
import type { HookRunRecord, Hooks } from '../../hooks/hooks';
import type { Activity, Approver, RuntimeSettings, SpawnInput } from '../types';
import { leanSchema } from './lean-schema';

export type AgentKind = 'lead' | 'teammate';

/** The agent a tool runs for. */
export interface AgentHandle {
  readonly name: string;
  readonly kind: AgentKind;
  /** Its files: a folder here, or its clone in its container (exec/agent-fs.ts). */
  readonly fs: AgentFs;
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

/** The spawner of the runner (runtime/spawner.ts): the team family's spawn_teammate. */
export interface Spawning {
  spawn(input: SpawnInput, by: string): Promise<Member>;
  /** Before a reply's calls run: its spawns, proposed to the user as one team under agentTeams.confirmTeam. */
  proposeTeam(inputs: readonly SpawnInput[], by: string): Promise<void>;
}

/** Worktree folders as agents work in them (runtime/workdirs.ts): the task family's claims. */
export interface Workdirs {
  /** The working folder of worktree `name`; a checkout made now is set up first, in `agent`'s transcript. */
  dir(name: string, agent?: string): Promise<string>;
  /** Why worktree `name` could not be created now, or null. */
  problem(name: string): Promise<string | null>;
}

/**
 * What tools reach of the team and the host running the agent: small services, each family
 * using a few (a family's narrow host is a `Pick` of this, see `toolFamily`; its tests fake
 * just those members).
 */
export interface ToolHost {
  readonly team: Team;
  settings(): RuntimeSettings;
  readonly approver: Approver;
  /** The folder's hooks (docs/hooks.md); absent where none may run. */
  readonly hooks?: Hooks;
  readonly processes: ProcessRegistry;
  /** Background commands (bash with run_in_background). */
  readonly jobs: JobManager;
  /** How commands are started: in the sandbox, or why not (docs/security.md). */
  readonly sandbox: CommandSandbox;
  /** Teammates whose commands and files are in a container of their own (docs/containers.md). */
  readonly containers: TeammateContainers;
  readonly spawner: Spawning;
  /** Whether the lead is in a turn (for send_message's answer); absent where unknown. */
  leadBusy?(): boolean;
  readonly workdirs: Workdirs;
  /** The teammates' git worktrees (the lead's worktree tools). */
  readonly worktrees: WorktreeManager;
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

type Handler<I, H = ToolHost> = (input: I, agent: AgentHandle, host: H) => Promise<ToolResult>;
/** Sees this tool's calls of a reply (the inputs that parse) before any call of the reply runs. */
type BeforeReply<I, H = ToolHost> = (inputs: I[], agent: AgentHandle, host: H) => Promise<void>;

/** One tool, whatever its schema was written in. */
export interface ToolDefinition extends Common {
  /** Everything else known about it: team-kept or workspace, Claude Code names, transcript heading (shared/tool-facts.ts). */
  readonly facts: ToolFacts;
  /** The JSON Schema the model is sent. */
  inputSchema(): JsonSchemaObject;
  /** Checks a call's input; the error names each bad field. */
  parse(input: unknown): Parsed;
  run: Handler<unknown>;
  /** What it needs before the reply's calls run (spawn_teammate: the team proposed as one). */
  beforeReply?: BeforeReply<unknown>;
}

export interface ZodTool<S extends z.ZodType, H = ToolHost> extends Common {
  /** Optional fields should be `.nullish()`: models send null for them. */
  readonly input: S;
  /** Shortens the schema the model is sent where its description already says it (the input still checks everything). */
  readonly forModel?: (schema: JsonSchemaObject) => JsonSchemaObject;
  run: Handler<z.output<S>, H>;
  beforeReply?: BeforeReply<z.output<S>, H>;
}

export interface JsonTool extends Common {
  readonly inputSchema: JsonSchemaObject;
  run: Handler<Record<string, unknown>>;
}

export function defineTool<S extends z.ZodType, K extends keyof ToolHost = keyof ToolHost>(def: ZodTool<S, Pick<ToolHost, K>>): ToolDefinition {
  let schema: JsonSchemaObject | undefined;
  const before = def.beforeReply;
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
        : { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') + unknownFields(def.input, input) };
    },
    run: (input, a, h) => def.run(input as z.output<S>, a, h),
    ...(before ? { beforeReply: (inputs: unknown[], a: AgentHandle, h: ToolHost) => before(inputs as z.output<S>[], a, h) } : {}),
  };
}

/**
 * For an input that failed: the fields it gave that the tool does not have, and the ones it
 * does — a model used to another agent's names (`old_string` for `old_text`) fixes its call at once.
 */
function unknownFields(schema: z.ZodType, input: unknown): string {
  if (!(schema instanceof z.ZodObject) || !input || typeof input !== 'object') return '';
  const fields = Object.keys(schema.shape as Record<string, unknown>);
  const unknown = Object.keys(input).filter((k) => !fields.includes(k));
  return unknown.length ? `; unknown field(s) ${unknown.join(', ')}: this tool's fields are ${fields.join(', ')}` : '';
}

/**
 * `defineTool` for a family whose handlers use only `K` of the host: the family's narrow host
 * is `Pick<ToolHost, K>`, and a test drives the family with a fake of just that.
 */
export function toolFamily<K extends keyof ToolHost>(): <S extends z.ZodType>(def: ZodTool<S, Pick<ToolHost, K>>) => ToolDefinition {
  return (def) => defineTool(def);
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
