// The roster, `.team/config.json` (docs/file-formats.md, "Roster"), and the names, usage and
// leases it holds. Objects are loose so fields written by newer versions or other tools survive a rewrite.
import { z } from 'zod';
import { NAME_RE } from '../names';

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
  /** Runs in a container of its own (docs/containers.md): its commands and file tools act on its clone there, its work comes back onto `branch`. */
  container: z.boolean().nullable().optional(),
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
  /** The model the lead's host runs it with (and teammates without their own `model`). */
  model: z.string().optional(),
  host: HostLease.nullable().optional(),
});
export type LeadRecord = z.infer<typeof LeadRecord>;

export const TeamConfig = z.looseObject({
  team_name: z.string(),
  members: z.array(Member),
  lead: LeadRecord.optional().catch(undefined),
});
export type TeamConfig = z.infer<typeof TeamConfig>;
