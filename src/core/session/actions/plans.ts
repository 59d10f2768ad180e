// The user's answer to a teammate's plan: one path for every host (the notification, the
// Team tree, the inbox, `agent-teams approve`, `/approve`).
import { z } from 'zod';
import type { RequestRecord } from '../../../shared/schemas';
import { ActionError, defineAction, RequestId, Text, type ActionScope } from './action';

async function decide(scope: ActionScope, requestId: string, approve: boolean, feedback: string): Promise<RequestRecord> {
  await scope.openTeam(async (t) => {
    if (!(await t.findRequest(requestId).catch(() => undefined))) throw new ActionError(`unknown request_id ${JSON.stringify(requestId)}`);
  });
  return scope.session.decidePlan(requestId, approve, feedback);
}

const said = (approve: boolean) => (r: RequestRecord) => `${approve ? 'Approved' : 'Rejected'} ${r.from}'s plan (${r.request_id}).`;

export const approvePlan = defineAction({
  id: 'approvePlan', summary: "approve a teammate's plan",
  args: z.object({ requestId: RequestId, feedback: z.string().optional() }),
  run: (scope, a) => decide(scope, a.requestId, true, a.feedback ?? ''),
  describe: said(true),
});

export const rejectPlan = defineAction({
  id: 'rejectPlan', summary: "reject a teammate's plan, saying what to change",
  args: z.object({ requestId: RequestId, feedback: Text }),
  run: (scope, a) => decide(scope, a.requestId, false, a.feedback),
  describe: said(false),
});
