// Teammates the user starts, stops, asks to shut down or to plan first.
import { z } from 'zod';
import { ParticipantName, type Member } from '../../../shared/schemas';
import { assertTeammateName } from '../../util/names';
import { ActionError, defineAction, Text } from './action';
import { NOTHING_TO_STOP } from '../team-session';

export const spawn = defineAction({
  id: 'spawn', summary: 'start a teammate',
  args: z.object({
    name: ParticipantName, role: z.string(), prompt: Text, isolation: z.enum(['none', 'worktree', 'container']).optional(),
    agent_type: z.string().nullish(), model: z.string().nullish(), plan_mode_required: z.boolean().nullish(),
  }).refine((a) => a.role.trim() || a.agent_type, { message: 'must not be empty', path: ['role'] }),
  run: ({ session }, a) => session.spawnTeammate({
    name: a.name, role: a.role, prompt: a.prompt, isolation: a.isolation,
    agent_type: a.agent_type || undefined, model: a.model || undefined, plan_mode_required: a.plan_mode_required ?? undefined,
  }, 'user'),
  describe: (m) => spawnNotes(m) ?? `Started ${m.name}.`,
});

/** What is particular about a teammate just started (its model, definition, plan mode), if anything. */
export function spawnNotes(m: Member): string | undefined {
  const notes = [m.model ? `model ${m.model}` : '', m.agent_type ? `from ${m.agent_type}` : '', m.plan_mode ? 'in plan mode: it changes nothing until you approve its plan' : '']
    .filter(Boolean);
  return notes.length ? `${m.name}: ${notes.join('; ')}.` : undefined;
}

export const stop = defineAction({
  id: 'stop', summary: "force-stop a teammate now (its in-progress tasks go back to pending); the lead: end its turn",
  args: z.object({ teammate: ParticipantName }),
  async run({ session }, a) {
    if (a.teammate !== 'lead') return session.stopTeammate(a.teammate);
    if (!session.agentsRunning) throw new ActionError(NOTHING_TO_STOP);
    session.cancelLeadTurn();
  },
  describe: (_r, a) => (a.teammate === 'lead' ? "Stopped the lead's turn." : `Stopped ${a.teammate}.`),
});

export const shutdown = defineAction({
  id: 'shutdown', summary: 'ask a teammate to shut down (it answers by message)',
  args: z.object({ teammate: ParticipantName }),
  async run({ session, openTeam }, a) {
    await openTeam((t) => t.mailbox.assertRecipient(assertTeammateName(a.teammate)));
    return session.requestShutdown(a.teammate);
  },
  describe: (r) => `Asked ${r.to} to shut down (${r.request_id}); its answer arrives in your inbox.`,
});

export const requestPlan = defineAction({
  id: 'requestPlan', summary: 'put a running teammate into plan mode (from its next tool call)',
  args: z.object({ teammate: ParticipantName }),
  async run({ session, openTeam }, a) {
    await openTeam();
    return session.requestPlan(a.teammate);
  },
  describe: (m) => `${m.name} plans first.`,
});
