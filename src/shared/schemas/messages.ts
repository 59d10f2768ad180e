// Inboxes, `.team/inbox/<name>.jsonl` (docs/file-formats.md, "Messages"): one message per
// line, a discriminated union on `type`; and each inbox's delivery cursor.
import { z } from 'zod';
import { ParticipantName } from './roster';

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

/** `.team/inbox/<name>.cursor.json` (docs/file-formats.md, "Delivery cursor"). */
export const InboxCursor = z.looseObject({ offset: z.number().int().nonnegative(), epoch: z.number().int().optional() });
export type InboxCursor = z.infer<typeof InboxCursor>;
