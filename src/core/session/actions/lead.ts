// What the user asks of the lead: a request (Ask Lead, the chat participant, the CLI's
// prompt), handed to the lead of this host. The action resolves when the lead's turn ends;
// a host that must not wait (a VS Code command) does not await it.
import { z } from 'zod';
import { defineAction, Text } from './action';

export const askLead = defineAction({
  id: 'askLead', summary: 'ask the lead (its turn starts now)',
  args: z.object({ prompt: Text }),
  async run({ session, openTeam }, a) {
    await openTeam();
    return session.askLead(a.prompt);
  },
  describe: () => 'The lead has your request.',
});
