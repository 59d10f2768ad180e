// Protocol tools: shutdown and plan approval, each a request/response pair settled in
// core/team (docs: protocols in README.md). plan_approval is one name for both sides: the
// lead decides, a teammate submits. The lead hears a shutdown's answer as mail; its status is
// in list_teammates, so the lead has no shutdown_response of its own (docs/tools.md).
import { z } from 'zod';
import { toolFamily, fail, ok, type ToolHost } from './definition';
import { teammateName } from './team';
import { HOW_TO_WAIT, requestPlan as putInPlanMode } from '../../roles/plan-mode';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type ProtocolToolHost = Pick<ToolHost, 'team' | 'settings'> & { mergeQueue?: Pick<ToolHost['mergeQueue'], 'sentBack'> };
const defineTool = toolFamily<keyof ProtocolToolHost>();

export const shutdownRequest = defineTool({
  name: 'shutdown_request',
  description: 'Ask a teammate to shut down; its answer comes as mail.',
  input: z.object({ teammate: teammateName }),
  agents: ['lead'],
  async run({ teammate }, a, h) {
    const r = await h.team.requestShutdown(a.name, teammate);
    return ok(`Shutdown requested: request_id=${r.request_id}. ${teammate} will answer.`);
  },
});

export const shutdownAnswer = defineTool({
  name: 'shutdown_response',
  description: 'Answer a shutdown_request: approve shuts you down now.',
  input: z.object({
    request_id: z.string(),
    approve: z.boolean(),
    reason: z.string().nullish(),
  }),
  agents: ['teammate'],
  async run({ request_id, approve, reason }, a, h) {
    // A note that the merge queue sent its branch back can arrive in the same round as the
    // request: shutting down then would leave the fix to nobody. The request stays open; once
    // the fixed branch lands the teammate is asked again (merge/entry-steps.ts shutDownAgain).
    if (approve && (await h.mergeQueue?.sentBack(a.name).catch(() => false))) {
      return fail('Not yet: the merge queue sent your branch back (its note is in your mail). Fix it and commit, then go idle: the branch is queued again by itself, and you are asked to shut down again once it lands.');
    }
    const r = await h.team.respondShutdown(a.name, request_id, approve, reason ?? '');
    if (!r.ok) return fail(r.error);
    if (approve) a.endAfterRound('shutdown');
    return ok(approve ? 'Shutdown approved: finishing now.' : 'Shutdown declined; keep working.');
  },
});

export const planDecision = defineTool({
  name: 'plan_approval',
  description: "Approve or reject a teammate's plan (feedback: what to change).",
  input: z.object({
    request_id: z.string(),
    approve: z.boolean(),
    feedback: z.string().nullish(),
  }),
  agents: ['lead'],
  async run({ request_id, approve, feedback }, a, h) {
    if (h.settings().planApproval !== 'lead') return fail('Plans are approved by the user (setting agentTeams.planApproval = user).');
    const r = await h.team.decidePlan(a.name, request_id, approve, feedback ?? '');
    return r.ok ? ok(`Plan ${request_id} ${approve ? 'approved' : 'rejected'}.`) : fail(r.error);
  },
});

export const requestPlan = defineTool({
  name: 'request_plan',
  description: 'Hold a running teammate\'s changes until a plan it submits for its current task is approved.',
  input: z.object({
    teammate: teammateName,
    reason: z.string().nullish(),
  }),
  agents: ['lead'],
  async run({ teammate, reason }, a, h) {
    await putInPlanMode(h.team, a.name, teammate, reason);
    const who = h.settings().planApproval;
    return ok(`${teammate} is in plan mode from its next tool call (a call already running finishes). It will submit a plan; ${who === 'lead' ? 'you decide with plan_approval' : 'the user decides'}.`);
  },
});

export const planSubmit = defineTool({
  name: 'plan_approval',
  description: 'Submit your plan for approval.',
  input: z.object({
    plan: z.string().min(1),
  }),
  agents: ['teammate'],
  async run({ plan }, a, h) {
    const approver = h.settings().planApproval;
    const r = await h.team.submitPlan(a.name, plan, approver);
    return ok(`Plan submitted (request_id=${r.request_id}) to ${approver}. File edits and commands stay refused until it is approved. ${HOW_TO_WAIT}`);
  },
});

export const protocolTools = [shutdownRequest, shutdownAnswer, planDecision, requestPlan, planSubmit];
