// The agents' tools: JSON Schemas generated from the zod inputs, and one handler per tool.
// A bad call or a failing handler becomes an error result for the model; nothing throws
// out of here into the loop.
import { z } from 'zod';
import type { Member } from '../../shared/team-schemas';
import { formatShellResult, runShell } from '../exec/shell';
import type { ProcessRegistry } from '../exec/process-group';
import type { WorkspaceFs } from '../exec/workspace-fs';
import type { ModelTool } from '../model';
import { describeFailed } from '../team/mailbox';
import type { Team } from '../team/team';
import { formatMail, formatTask } from './prompts';
import {
  GATED_BY_PLAN, MODEL_NAME, TOOL_DESCRIPTIONS, toolSchemas, type ToolInput, type ToolKey,
} from './tool-schemas';
import type { Activity, Approver, RuntimeSettings, SpawnInput } from './types';

export interface AgentHandle {
  readonly name: string;
  readonly kind: 'lead' | 'teammate';
  readonly fs: WorkspaceFs;
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** False while this teammate's latest plan is not approved. */
  planGateOpen(): Promise<boolean>;
  /** Why a workspace-changing tool is refused now (plan mode, a plan awaiting approval), or null. */
  planRefusal(tool: string): Promise<string | null>;
  /** The shutdown was approved: end the phase after this round. */
  endAfterRound(reason: 'shutdown' | 'idle'): void;
  /** read_inbox consumed mail up to `cursor`; recorded with the next transcript entry. */
  noteInboxRead(cursor: number): void;
  inboxPosition(): number;
  setWorkdir(dir: string): void;
  /** What the agent is doing, as the tree and the CLI show it. */
  setActivity(a: Activity): void;
}

export interface ToolHost {
  readonly team: Team;
  settings(): RuntimeSettings;
  readonly approver: Approver;
  readonly processes: ProcessRegistry;
  spawnTeammate(input: SpawnInput, by: string): Promise<Member>;
  worktreeDir(name: string): Promise<string>;
}

export interface ToolResult {
  text: string;
  isError: boolean;
}

const ok = (text: string): ToolResult => ({ text, isError: false });
const fail = (text: string): ToolResult => ({ text, isError: true });
const MAX_OUTPUT = 30_000;

type Handler<K extends ToolKey> = (input: ToolInput<K>, a: AgentHandle, h: ToolHost) => Promise<ToolResult>;

const handlers: { [K in ToolKey]: Handler<K> } = {
  async bash({ command }, a, h) {
    const policy = h.settings().bashPolicy;
    if (policy === 'deny') return fail('Shell commands are disabled by the setting agentTeams.toolApproval.bash = deny.');
    if (policy === 'ask') {
      // Shown in the tree and the CLI, so a prompt nobody answered is visible, not a silent hang.
      a.setActivity({ kind: 'waiting-approval', what: `bash \`${command.length > 80 ? `${command.slice(0, 80)}…` : command}\`` });
      const decision = await h.approver.bash(a.name, command, a.signal);
      a.setActivity({ kind: 'tool', tool: 'bash' });
      if (decision !== 'allow') return fail('The user denied this command.');
    }
    const r = await runShell(command, {
      cwd: a.cwd, timeoutMs: h.settings().bashTimeoutSeconds * 1000, maxOutputBytes: MAX_OUTPUT,
      signal: a.signal, track: { registry: h.processes, owner: a.name },
    });
    return { text: formatShellResult(r), isError: r.exitCode !== 0 };
  },
  async read_file({ path, limit }, a) {
    return ok(await a.fs.readFile(path, { limit }));
  },
  async write_file({ path, content }, a) {
    const r = await a.fs.writeFile(path, content);
    return ok(`${r.created ? 'Created' : 'Wrote'} ${path} (${r.bytes} bytes)`);
  },
  async edit_file({ path, old_text, new_text }, a) {
    await a.fs.editFile(path, old_text, new_text);
    return ok(`Edited ${path}`);
  },
  async spawn_teammate({ name, role, prompt, isolation }, a, h) {
    const m = await h.spawnTeammate({ name, role, prompt, isolation: isolation ?? 'none' }, a.name);
    const where = m.branch ? ` in its worktree on branch ${m.branch}` : '';
    return ok(`Spawned ${m.name} (${m.role})${where}; it is working on your prompt.`);
  },
  async list_teammates(_i, _a, h) {
    const members = await h.team.roster.list();
    if (!members.length) return ok('No teammates yet.');
    return ok(members.map((m) => `${m.name} (${m.role}): ${m.status}${m.current_task ? `, task #${m.current_task}` : ''}`).join('\n'));
  },
  async send_message({ to, content, msg_type }, a, h) {
    if (msg_type === 'broadcast') return handlers.broadcast({ content }, a, h);
    if (to === a.name) return fail('You cannot message yourself.');
    const m = await h.team.mailbox.send({ from: a.name, to, type: 'message', content });
    return ok(`Sent to ${m.to}.`);
  },
  async read_inbox(_i, a, h) {
    const d = await h.team.mailbox.unread(a.name, a.inboxPosition());
    a.noteInboxRead(d.cursor);
    return ok(d.messages.length ? d.messages.map(formatMail).join('\n\n') : 'No new messages.');
  },
  async broadcast({ content }, a, h) {
    const r = await h.team.mailbox.broadcastReport(a.name, content);
    if (!r.sent.length && !r.failed.length) return ok('No teammates to broadcast to.');
    const got = r.sent.length ? `Broadcast to ${r.sent.map((m) => m.to).join(', ')}.` : 'Nobody got the broadcast.';
    // Who got it is said either way, so a retry goes only to those who did not.
    return r.failed.length ? { text: `${got} Not delivered to: ${describeFailed(r)}.`, isError: r.sent.length === 0 } : ok(got);
  },
  async shutdown_request({ teammate }, a, h) {
    const r = await h.team.requestShutdown(a.name, teammate);
    return ok(`Shutdown requested: request_id=${r.request_id}. ${teammate} will answer.`);
  },
  async lead_shutdown_response({ request_id }, _a, h) {
    const r = await h.team.requests.get(request_id);
    if (!r || r.kind !== 'shutdown') return fail(`No shutdown request ${request_id}.`);
    return ok(`${request_id}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
  },
  async teammate_shutdown_response({ request_id, approve, reason }, a, h) {
    const r = await h.team.respondShutdown(a.name, request_id, approve, reason ?? '');
    if (!r.ok) return fail(r.error);
    if (approve) a.endAfterRound('shutdown');
    return ok(approve ? 'Shutdown approved: finishing now.' : 'Shutdown declined; keep working.');
  },
  async lead_plan_approval({ request_id, approve, feedback }, a, h) {
    if (h.settings().planApproval !== 'lead') return fail('Plans are approved by the user (setting agentTeams.planApproval = user).');
    const r = await h.team.decidePlan(a.name, request_id, approve, feedback ?? '');
    return r.ok ? ok(`Plan ${request_id} ${approve ? 'approved' : 'rejected'}.`) : fail(r.error);
  },
  async teammate_plan_approval({ plan }, a, h) {
    const approver = h.settings().planApproval;
    const r = await h.team.submitPlan(a.name, plan, approver);
    return ok(`Plan submitted (request_id=${r.request_id}) to ${approver}. Wait for the answer before changing files.`);
  },
  async idle(_i, a) {
    a.endAfterRound('idle');
    return ok('Going idle. You will be woken by new messages or tasks.');
  },
  async task_create({ subject, description, blockedBy, worktree }, _a, h) {
    const t = await h.team.tasks.create({ subject, description: description ?? '', blockedBy: blockedBy ?? [], worktree: worktree ?? null });
    return ok(`Created ${formatTask(t)}`);
  },
  async task_list(_i, _a, h) {
    const tasks = await h.team.tasks.list();
    return ok(tasks.length ? tasks.map(formatTask).join('\n') : 'The board is empty.');
  },
  async task_get({ task_id }, _a, h) {
    const t = await h.team.tasks.get(task_id);
    return t ? ok(`${formatTask(t)}\n${t.description}`) : fail(`Task ${task_id} not found.`);
  },
  async task_update({ task_id, status, owner, addBlockedBy, removeBlockedBy }, a, h) {
    const t = await h.team.tasks.update(task_id, {
      status: status ?? undefined, owner: owner ?? undefined,
      addBlockedBy: addBlockedBy ?? undefined, removeBlockedBy: removeBlockedBy ?? undefined,
    }, a.name);
    if (a.kind === 'teammate') {
      const current = t.status === 'in_progress' && t.owner === a.name ? t.id : null;
      await h.team.roster.patch(a.name, { current_task: current }).catch(() => undefined);
    }
    return ok(`Updated ${formatTask(t)}`);
  },
  async claim_task({ task_id }, a, h) {
    const r = await h.team.tasks.claim(task_id, a.name);
    if (!r.ok) return fail(r.reason);
    if (a.kind === 'teammate') await h.team.roster.patch(a.name, { current_task: r.task.id }).catch(() => undefined);
    if (r.task.worktree && a.kind === 'teammate') {
      a.setWorkdir(await h.worktreeDir(r.task.worktree));
      return ok(`Claimed ${formatTask(r.task)}\nYou now work in worktree "${r.task.worktree}" (${a.cwd}).`);
    }
    return ok(`Claimed ${formatTask(r.task)}`);
  },
};

export class ToolSet {
  private readonly byModelName = new Map<string, ToolKey>();
  readonly definitions: ModelTool[];

  constructor(keys: ToolKey[]) {
    this.definitions = keys.map((k) => {
      this.byModelName.set(MODEL_NAME[k], k);
      const schema = z.toJSONSchema(toolSchemas[k], { io: 'input' }) as Record<string, unknown>;
      delete schema.$schema;
      return { name: MODEL_NAME[k], description: TOOL_DESCRIPTIONS[k], input_schema: schema as ModelTool['input_schema'] };
    });
  }

  async run(modelName: string, input: unknown, a: AgentHandle, h: ToolHost): Promise<ToolResult> {
    const key = this.byModelName.get(modelName);
    if (!key) return fail(`Unknown tool "${modelName}".`);
    const parsed = toolSchemas[key].safeParse(input ?? {});
    if (!parsed.success) {
      return fail(`Invalid input for ${modelName}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`);
    }
    try {
      const refusal = a.kind === 'teammate' && GATED_BY_PLAN.has(key) ? await a.planRefusal(modelName) : null;
      if (refusal) return fail(refusal);
      const r = await (handlers[key] as Handler<ToolKey>)(parsed.data as ToolInput<ToolKey>, a, h);
      return r.text.length > MAX_OUTPUT * 2 ? { ...r, text: r.text.slice(0, MAX_OUTPUT * 2) + '\n[... truncated]' } : r;
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err));
    }
  }
}
