// Input schemas for every agent tool (README.md, "What works"). The `.describe()` text is written for the
// model; the JSON Schema it sees is generated from these, and calls are validated by them.
// Optional fields accept null, which models often send.
import { z } from 'zod';

const opt = <T extends z.ZodType>(t: T) => t.nullish();
const name = z.string().describe('A teammate name: lowercase letters, digits, "-" or "_", starting with a letter.');
const taskId = z.number().int().positive().describe('The numeric id of a task on the board.');

export const toolSchemas = {
  bash: z.object({ command: z.string().min(1).describe('Shell command to run in the workspace (bash -c). Avoid interactive commands.') }),
  read_file: z.object({
    path: z.string().describe('File path relative to the workspace root.'),
    limit: opt(z.number().int().positive()).describe('Read at most this many lines.'),
  }),
  write_file: z.object({
    path: z.string().describe('File path relative to the workspace root; parent folders are created.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  edit_file: z.object({
    path: z.string().describe('File path relative to the workspace root.'),
    old_text: z.string().min(1).describe('Exact text to replace; it must occur exactly once in the file.'),
    new_text: z.string().describe('Replacement text.'),
  }),
  spawn_teammate: z.object({
    name,
    role: z.string().min(1).describe('What this teammate is for, e.g. "backend engineer".'),
    prompt: z.string().min(1).describe('The first instruction the teammate works on.'),
    isolation: opt(z.enum(['none', 'worktree'])).describe('"worktree": the teammate edits its own git worktree (branch wt/<name>) so parallel edits never collide.'),
  }),
  list_teammates: z.object({}),
  send_message: z.object({
    to: z.string().describe('Recipient: a teammate name, "lead" or "user".'),
    content: z.string().min(1).describe('The message text.'),
    msg_type: opt(z.enum(['message', 'broadcast'])).describe('"message" (default). Protocol messages have their own tools.'),
  }),
  read_inbox: z.object({}),
  broadcast: z.object({ content: z.string().min(1).describe('Sent to every teammate except you.') }),
  shutdown_request: z.object({ teammate: name.describe('The teammate to ask to shut down.') }),
  lead_shutdown_response: z.object({ request_id: z.string().describe('The request_id returned by shutdown_request.') }),
  teammate_shutdown_response: z.object({
    request_id: z.string().describe('The request_id of the shutdown_request you received.'),
    approve: z.boolean().describe('true to shut down now; false to keep working.'),
    reason: opt(z.string()).describe('Why, in a sentence.'),
  }),
  lead_plan_approval: z.object({
    request_id: z.string().describe('The request_id of the plan_approval_request.'),
    approve: z.boolean().describe('true to approve the plan.'),
    feedback: opt(z.string()).describe('What to change (required in spirit when rejecting).'),
  }),
  teammate_plan_approval: z.object({
    plan: z.string().min(1).describe('Your plan, step by step. File edits and shell commands are refused until it is approved.'),
  }),
  idle: z.object({}),
  task_create: z.object({
    subject: z.string().min(1).describe('Short title of the task.'),
    description: opt(z.string()).describe('Details, acceptance criteria.'),
    blockedBy: opt(z.array(z.number().int().positive())).describe('Ids of tasks that must be completed first.'),
    worktree: opt(z.string()).describe('Bind the task to this git worktree name: whoever claims it works there.'),
  }),
  task_list: z.object({}),
  task_get: z.object({ task_id: taskId }),
  task_update: z.object({
    task_id: taskId,
    status: opt(z.enum(['pending', 'in_progress', 'completed'])).describe('New status. "completed" unblocks dependent tasks.'),
    owner: opt(z.string()).describe('New owner name ("" to clear).'),
    addBlockedBy: opt(z.array(z.number().int().positive())).describe('Task ids to add as blockers.'),
    removeBlockedBy: opt(z.array(z.number().int().positive())).describe('Task ids to remove from the blockers.'),
  }),
  claim_task: z.object({ task_id: taskId }),
};

export type ToolKey = keyof typeof toolSchemas;
export type ToolInput<K extends ToolKey> = z.infer<(typeof toolSchemas)[K]>;

export const TOOL_DESCRIPTIONS: Record<ToolKey, string> = {
  bash: 'Run a shell command in your working directory. Output is capped; long commands time out.',
  read_file: 'Read a text file from the workspace.',
  write_file: 'Create or overwrite a file in the workspace.',
  edit_file: 'Replace one exact occurrence of text in a file.',
  spawn_teammate: 'Start a persistent teammate (or restart an idle/shut-down one) with a role and a first instruction.',
  list_teammates: 'List teammates with status, role and current task.',
  send_message: 'Send a message to a teammate, the lead or the user.',
  read_inbox: 'Read new messages now (they are also delivered to you automatically between tool calls).',
  broadcast: 'Send a message to every teammate except you.',
  shutdown_request: 'Ask a teammate to shut down gracefully; it answers with approve/reject.',
  lead_shutdown_response: 'Check the status of a shutdown request you sent.',
  teammate_shutdown_response: 'Answer a shutdown request addressed to you.',
  lead_plan_approval: "Approve or reject a teammate's submitted plan.",
  teammate_plan_approval: 'Submit your plan for approval before making changes; wait for the answer.',
  idle: 'Stop working for now: you will be woken by new messages or claimable tasks.',
  task_create: 'Add a task to the shared board.',
  task_list: 'List all tasks with status, owner and blockers.',
  task_get: 'Show one task in full.',
  task_update: 'Change a task: status, owner or blockers.',
  claim_task: 'Take ownership of a pending, unblocked task and start it.',
};

/** Tool name the model sees for each key (lead and teammate variants share a name). */
export const MODEL_NAME: Record<ToolKey, string> = {
  ...(Object.fromEntries(Object.keys(toolSchemas).map((k) => [k, k])) as Record<ToolKey, string>),
  lead_shutdown_response: 'shutdown_response',
  teammate_shutdown_response: 'shutdown_response',
  lead_plan_approval: 'plan_approval',
  teammate_plan_approval: 'plan_approval',
};

export const LEAD_TOOLS: ToolKey[] = [
  'bash', 'read_file', 'write_file', 'edit_file', 'spawn_teammate', 'list_teammates', 'send_message',
  'read_inbox', 'broadcast', 'shutdown_request', 'lead_shutdown_response', 'lead_plan_approval',
  'task_create', 'task_list', 'task_get', 'task_update', 'claim_task',
];

export const TEAMMATE_TOOLS: ToolKey[] = [
  'bash', 'read_file', 'write_file', 'edit_file', 'send_message', 'read_inbox', 'teammate_shutdown_response',
  'teammate_plan_approval', 'idle', 'claim_task', 'task_create', 'task_list', 'task_get', 'task_update',
];

/** Tools refused while a teammate's plan awaits approval. */
export const GATED_BY_PLAN = new Set<ToolKey>(['bash', 'write_file', 'edit_file']);
