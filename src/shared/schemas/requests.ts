// Protocol requests, `.team/requests/<request_id>.json` (docs/file-formats.md, "Requests").
import { z } from 'zod';
import { ParticipantName } from './roster';

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
