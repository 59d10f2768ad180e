// What is known about each built-in agent tool besides its input and handler, in one table:
// whether the team keeps it for every teammate, whether an agent definition's `tools` may
// name it (docs/file-formats.md, "Agent definitions") and by which Claude Code names, which
// input field heads its transcript row, and whether that row is mail or a protocol request.
// Here, not beside each definition in core/runtime/tools, because the transcript rows (this
// folder, shared with the webviews) read it too; every definition carries its entry
// (`ToolDefinition.facts`) and test/runtime/tool-facts.test.ts checks that each defined tool
// has one and each entry a tool.

export interface ToolFacts {
  /** Kept by the team: a teammate has it whatever its definition's `tools` list says. */
  readonly team?: true;
  /** A workspace tool an agent definition's `tools` may name. */
  readonly workspace?: true;
  /** Claude Code's names for it, accepted in a definition's `tools`. */
  readonly claudeNames?: readonly string[];
  /** The input field that says what a call does, heading its transcript row. */
  readonly keyArg?: string;
  /** Its transcript row: mail sent, or a protocol request (summary mode shows these). */
  readonly row?: 'mail' | 'request';
}

export const TOOL_FACTS: Readonly<Record<string, ToolFacts>> = {
  bash: { workspace: true, claudeNames: ['Bash'], keyArg: 'command' },
  job_output: { workspace: true, claudeNames: ['BashOutput'], keyArg: 'job_id' },
  job_kill: { workspace: true, claudeNames: ['KillBash', 'KillShell'], keyArg: 'job_id' },
  list_dir: { workspace: true, claudeNames: ['LS'], keyArg: 'path' },
  glob: { workspace: true, claudeNames: ['Glob'], keyArg: 'pattern' },
  grep: { workspace: true, claudeNames: ['Grep'], keyArg: 'pattern' },
  read_file: { workspace: true, claudeNames: ['Read'], keyArg: 'path' },
  write_file: { workspace: true, claudeNames: ['Write'], keyArg: 'path' },
  edit_file: { workspace: true, claudeNames: ['Edit', 'MultiEdit'], keyArg: 'path' },
  spawn_teammate: { keyArg: 'name' },
  list_teammates: {},
  send_message: { team: true, row: 'mail' },
  read_inbox: { team: true },
  shutdown_request: { row: 'request' },
  shutdown_response: { team: true, row: 'request' },
  plan_approval: { team: true, row: 'request' },
  request_plan: { row: 'request' },
  idle: { team: true },
  claim_task: { team: true, keyArg: 'task_id' },
  task_create: { team: true, keyArg: 'subject' },
  task_list: { team: true },
  task_get: { team: true, keyArg: 'task_id' },
  task_update: { team: true, keyArg: 'task_id' },
  queue_merge: { keyArg: 'teammate' },
  worktree_status: {},
  worktree_diff: { keyArg: 'teammate' },
  worktree_keep: { keyArg: 'teammate' },
  worktree_remove: { keyArg: 'teammate' },
};

const NONE: ToolFacts = {};

/** The facts of tool `name` (none for a tool not in the table: an MCP server's). */
export function toolFacts(name: string): ToolFacts {
  return Object.hasOwn(TOOL_FACTS, name) ? TOOL_FACTS[name]! : NONE;
}

/** Tool names whose facts pass `pick`. */
export function toolsWhere(pick: (f: ToolFacts) => boolean | undefined): string[] {
  return Object.keys(TOOL_FACTS).filter((n) => pick(TOOL_FACTS[n]!));
}
