// Mail the user sends: to one participant, or to every running teammate. Every view's mail
// (the Inbox, a transcript panel, the commands, the CLI) comes here: the session has no other
// way to send as the user.
import { z } from 'zod';
import { ParticipantName } from '../../../shared/schemas';
import { describeFailed } from '../../team/mailbox';
import { ActionError, defineAction, Text } from './action';

export const send = defineAction({
  id: 'send', summary: 'send a message as user',
  args: z.object({ to: ParticipantName, content: Text }),
  async run({ openTeam }, a) {
    const team = await openTeam((t) => t.mailbox.assertRecipient(a.to));
    return team.mailbox.send({ from: 'user', to: a.to, type: 'message', content: a.content });
  },
  describe: (_m, a) => `Sent to ${a.to}.`,
});

export const NOBODY_TO_BROADCAST = 'Nobody to broadcast to: no teammate is running.';

export const broadcast = defineAction({
  id: 'broadcast', summary: 'message every running teammate as user',
  args: z.object({ content: Text }),
  async run({ openTeam }, a) {
    const team = await openTeam(async (t) => {
      if (!(await t.roster.list()).some((m) => m.status !== 'shutdown')) throw new ActionError(NOBODY_TO_BROADCAST);
    });
    return team.mailbox.broadcastReport('user', a.content);
  },
  describe(r) {
    const got = r.sent.length ? `Sent to ${r.sent.map((m) => m.to).join(', ')}.` : NOBODY_TO_BROADCAST;
    return r.failed.length ? `${got}\nNot delivered to: ${describeFailed(r)}.` : got;
  },
});
