// What an inbox line means as a message: ours carry `id` and `to`; a line the learn-claude-code tutorial
// wrote (`{"type","from","content","timestamp"}`) does not, and is read as a message to
// the inbox's owner with an id derived from the file and the line's byte offset
// (docs/file-formats.md, "Messages"). The tutorial's plan submission
// (`plan_approval_response` with `plan`, no `approve`) reads as a plan request.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { Message, normalizeLegacyMessage, type Message as MessageT } from '../../shared/schemas';

/** Stable across reads and processes, unique per line: file name + byte offset. */
export function tutorialMessageId(inboxPath: string, offset: number): string {
  return `t-${createHash('sha256').update(`${basename(inboxPath)}:${offset}`).digest('hex').slice(0, 20)}`;
}

export type LineParse = { ok: true; message: MessageT } | { ok: false; error: string };

/** Validates one inbox line of `owner`'s inbox at byte `offset`. */
export function parseInboxLine(raw: unknown, owner: string, inboxPath: string, offset: number): LineParse {
  let value = normalizeLegacyMessage(raw);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const r = value as Record<string, unknown>;
    if (r.id === undefined || r.to === undefined) {
      value = { ...r, id: r.id ?? tutorialMessageId(inboxPath, offset), to: r.to ?? owner };
    }
  }
  const parsed = Message.safeParse(value);
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, error: parsed.error.issues[0]?.message ?? 'invalid' };
}
