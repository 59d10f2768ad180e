// PreToolUse and PostToolUse around one tool call (docs/hooks.md). Before: a hook's exit 2,
// `decision: "block"` or `permissionDecision: "deny"` refuses the call with its reason;
// `ask` puts the call to the user first; `allow` answers the question a tool would ask only
// by default (no rule decided) — deny and ask rules still apply, as in Claude Code. After:
// a hook's block or additional context is added to the result the model reads.
import { resolve } from 'node:path';
import type { ToolResult } from '../runtime/tools/definition';
import type { Activity, Approver } from '../runtime/types';
import { claudeToolName, type HookAgent, type HookRunRecord, type Hooks } from './hooks';

/** The agent as the tool hooks need it (the Agent class has all of it). */
export interface HookedAgent {
  readonly name: string;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly transcript: { readonly path: string; note(e: HookRunRecord): Promise<void> };
  hookApproved: boolean;
  setActivity(a: Activity): void;
}

/** The agent for Hooks.run: its transcript (when it has one) hears every run. */
export function hookAgent(a: { name: string; cwd: string; transcript?: HookedAgent['transcript'] }): HookAgent {
  const t = a.transcript;
  return { name: a.name, cwd: a.cwd, transcriptPath: t?.path ?? '', ...(t ? { note: (r: HookRunRecord) => t.note(r) } : {}) };
}

const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep']);

/** Our input plus the fields Claude Code's hooks read (`file_path`, absolute; `old_string`/`new_string`). */
export function claudeToolInput(tool: string, input: unknown, cwd: string): Record<string, unknown> {
  const i: Record<string, unknown> = input && typeof input === 'object' && !Array.isArray(input) ? { ...(input as Record<string, unknown>) } : {};
  if (FILE_TOOLS.has(tool) && typeof i.path === 'string') i.file_path = resolve(cwd, i.path);
  if (tool === 'edit_file') {
    i.old_string = i.old_text;
    i.new_string = i.new_text;
  }
  return i;
}

function summary(input: unknown): string {
  const s = JSON.stringify(input ?? {});
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

export async function withToolHooks(
  a: HookedAgent, env: { hooks?: Hooks; approver: Approver }, call: { id: string; name: string; input: unknown },
  run: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const hooks = env.hooks;
  if (!hooks || (!hooks.has('PreToolUse') && !hooks.has('PostToolUse'))) return run();
  const names = [call.name, claudeToolName(call.name)];
  const fields = { tool_name: claudeToolName(call.name), agent_tool_name: call.name, tool_input: claudeToolInput(call.name, call.input, a.cwd), tool_use_id: call.id };
  const who = hookAgent(a);
  let approved = false;
  if (hooks.has('PreToolUse')) {
    const pre = await hooks.run('PreToolUse', who, fields, names);
    if (pre.blocked || pre.permission === 'deny') {
      return { text: `Refused by a PreToolUse hook: ${pre.feedback || pre.permissionReason || 'no reason given'}`, isError: true };
    }
    if (pre.permission === 'ask') {
      a.setActivity({ kind: 'waiting-approval', what: `${call.name} ${summary(call.input)}` });
      const reason = pre.permissionReason || 'a PreToolUse hook asks';
      const answer = env.approver.tool ? await env.approver.tool(a.name, `use ${call.name} ${summary(call.input)}`, reason, a.signal).catch(() => 'deny' as const) : 'deny';
      a.setActivity({ kind: 'tool', tool: call.name });
      if (answer !== 'allow') return { text: `The user denied this call (${reason}).`, isError: true };
      approved = true;
    }
    if (pre.permission === 'allow') approved = true;
  }
  a.hookApproved = approved;
  let r: ToolResult;
  try {
    r = await run();
  } finally {
    a.hookApproved = false;
  }
  if (!hooks.has('PostToolUse')) return r;
  const post = await hooks.run('PostToolUse', who, { ...fields, tool_response: { text: r.text, is_error: r.isError } }, names);
  const notes = [post.blocked ? `PostToolUse hook: ${post.feedback}` : '', post.context ? `PostToolUse hook context: ${post.context}` : ''].filter(Boolean);
  return notes.length ? { ...r, text: `${r.text}\n\n${notes.join('\n')}` } : r;
}
