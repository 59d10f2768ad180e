// zod schemas for every file format in docs/file-formats.md; TypeScript types are inferred from them.
// Objects are loose so fields written by newer versions or other tools survive a rewrite.
import { z } from 'zod';
import { NAME_RE } from './names';

export const ParticipantName = z.string().regex(NAME_RE, 'must match ^[a-z][a-z0-9_-]{0,31}$');

export const MemberStatus = z.enum(['working', 'idle', 'shutdown']);
export type MemberStatus = z.infer<typeof MemberStatus>;

export const Usage = z.looseObject({
  input: z.number().default(0),
  output: z.number().default(0),
  cache_read: z.number().default(0),
  cache_write: z.number().default(0),
  /** Model calls whose provider reported no usage (docs/models.md): their tokens are unknown, not 0. */
  unreported: z.number().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const HostLease = z.looseObject({
  id: z.string(),
  pid: z.number(),
  heartbeat_at: z.number(),
  hostname: z.string().optional(),
});
export type HostLease = z.infer<typeof HostLease>;

/**
 * A process group a host started for an agent (`.team/processes/<pgid>-<start>.json`,
 * docs/file-formats.md "Process records"): kept while it runs, so a host taking over from a
 * dead one can kill it. `start` is field 22 of /proc/<pid>/stat (start time since boot),
 * which with `boot` (the kernel's boot id) tells a reused pid from the recorded process.
 */
export const ProcessRecord = z.looseObject({
  pgid: z.number().int().positive(),
  start: z.string(),
  boot: z.string(),
  agent: z.string(),
  kind: z.enum(['bash', 'job']),
  command: z.string(),
  started_at: z.number(),
  host: z.looseObject({ id: z.string(), pid: z.number().int().positive(), start: z.string(), hostname: z.string() }),
});
export type ProcessRecord = z.infer<typeof ProcessRecord>;

/**
 * Plan mode (docs/file-formats.md, "Plan mode"): set at spawn or by request_plan; the
 * teammate's workspace-changing tools are refused until a plan it submitted under this
 * `id`, in its current incarnation, for its current task, is approved.
 */
export const PlanMode = z.looseObject({
  id: z.string(),
  by: z.string(),
  since: z.number(),
  reason: z.string().optional(),
});
export type PlanMode = z.infer<typeof PlanMode>;

export const Member = z.looseObject({
  name: ParticipantName,
  role: z.string(),
  status: MemberStatus,
  incarnation: z.number().int().optional(),
  model: z.string().optional(),
  usage: Usage.optional(),
  current_task: z.number().int().nullable().optional(),
  host: HostLease.nullable().optional(),
  /** Absolute path of the teammate's worktree checkout, when isolated. */
  worktree: z.string().nullable().optional(),
  branch: z.string().nullable().optional(),
  plan_mode: PlanMode.nullable().optional(),
  /** The agent definition it was spawned from (.team/agents, .claude/agents). */
  agent_type: z.string().nullable().optional(),
  /** Workspace tools it may be offered (from its definition); absent or null = all. */
  tools: z.array(z.string()).nullable().optional(),
});
export type Member = z.infer<typeof Member>;

/**
 * The roster's top-level `lead` record: the lead's usage and the lease of the host that runs
 * it. A malformed one is dropped (read as absent) rather than failing the whole roster.
 */
export const LeadRecord = z.looseObject({
  usage: Usage.optional(),
  host: HostLease.nullable().optional(),
});
export type LeadRecord = z.infer<typeof LeadRecord>;

export const TeamConfig = z.looseObject({
  team_name: z.string(),
  members: z.array(Member),
  lead: LeadRecord.optional().catch(undefined),
});
export type TeamConfig = z.infer<typeof TeamConfig>;

// ── Messages (docs/file-formats.md, "Messages"): a discriminated union on `type`. ──
const base = {
  id: z.string().min(1),
  from: ParticipantName,
  to: ParticipantName,
  content: z.string(),
  timestamp: z.number(),
};
export const MESSAGE_TYPES = [
  'message',
  'broadcast',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_request',
  'plan_approval_response',
  'result',
] as const;
export const MessageType = z.enum(MESSAGE_TYPES);
export type MessageType = z.infer<typeof MessageType>;

export const Message = z.discriminatedUnion('type', [
  z.looseObject({ ...base, type: z.literal('message') }),
  z.looseObject({ ...base, type: z.literal('broadcast') }),
  /** A teammate's final words of a work phase, to the lead (docs/file-formats.md, "Messages"). */
  z.looseObject({ ...base, type: z.literal('result') }),
  z.looseObject({ ...base, type: z.literal('shutdown_request'), request_id: z.string() }),
  z.looseObject({
    ...base,
    type: z.literal('shutdown_response'),
    request_id: z.string(),
    approve: z.boolean(),
    reason: z.string().optional(),
  }),
  z.looseObject({ ...base, type: z.literal('plan_approval_request'), request_id: z.string(), plan: z.string() }),
  z.looseObject({
    ...base,
    type: z.literal('plan_approval_response'),
    request_id: z.string(),
    approve: z.boolean(),
    feedback: z.string().optional(),
  }),
]);
export type Message = z.infer<typeof Message>;

/**
 * The tutorial (learn-claude-code s09–s11; docs/file-formats.md) sent plan submissions as `plan_approval_response` carrying `plan` and no
 * `approve`; readers accept that form as a request (docs/file-formats.md, "Messages").
 */
export function normalizeLegacyMessage(raw: unknown): unknown {
  if (raw && typeof raw === 'object') {
    const r = raw as Record<string, unknown>;
    if (r.type === 'plan_approval_response' && typeof r.plan === 'string' && typeof r.approve !== 'boolean') {
      return { ...r, type: 'plan_approval_request' };
    }
  }
  return raw;
}

// ── Protocol requests (docs/file-formats.md, "Requests") ──
export const RequestKind = z.enum(['shutdown', 'plan']);
export type RequestKind = z.infer<typeof RequestKind>;
export const RequestStatus = z.enum(['pending', 'approved', 'rejected', 'expired']);
export type RequestStatus = z.infer<typeof RequestStatus>;

export const RequestRecord = z.looseObject({
  request_id: z.string(),
  kind: RequestKind,
  from: ParticipantName,
  to: ParticipantName,
  status: RequestStatus,
  created_at: z.number(),
  updated_at: z.number().optional(),
  /** Incarnation of the teammate the request concerns; a re-spawn expires older ones. */
  incarnation: z.number().int().optional(),
  subject: ParticipantName.optional(),
  plan: z.string().optional(),
  feedback: z.string().optional(),
  reason: z.string().optional(),
  responded_by: ParticipantName.optional(),
  /** Plans: the author's current task when submitted (an approval counts for that task only). */
  task: z.number().int().nullable().optional(),
  /** Plans: the plan mode (PlanMode.id) the plan was submitted under. */
  plan_mode_id: z.string().nullable().optional(),
});
export type RequestRecord = z.infer<typeof RequestRecord>;

// ── Tasks (docs/file-formats.md, "Tasks") ──
export const TaskStatus = z.enum(['pending', 'in_progress', 'completed']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const Task = z.looseObject({
  id: z.number().int().positive(),
  subject: z.string(),
  description: z.string().default(''),
  status: TaskStatus,
  owner: z.string().nullable().default('').transform((o) => o ?? ''),
  blockedBy: z.array(z.number().int()).default([]),
  worktree: z.string().nullable().optional(),
  /** Globs of the files the task may change (docs/file-formats.md, "Tasks": file ownership). */
  files: z.array(z.string()).optional(),
});
export type Task = z.infer<typeof Task>;
