// Protocol tools: shutdown and plan approval, each a request/response pair settled in
// core/team (docs: protocols in README.md). The lead and a teammate see the same tool name
// with the side of the protocol that is theirs.
import { z } from 'zod';
import { defineTool, fail, ok } from './definition';
import { teammateName } from './team';
import { HOW_TO_WAIT, requestPlan as putInPlanMode } from '../../roles/plan-mode';

export const shutdownRequest = defineTool({
  name: 'shutdown_request',
  description: 'Ask a teammate to shut down gracefully; it answers with approve/reject.',
  input: z.object({ teammate: teammateName.describe('The teammate to ask to shut down.') }),
  agents: ['lead'],
  async run({ teammate }, a, h) {
    const r = await h.team.requestShutdown(a.name, teammate);
    return ok(`Shutdown requested: request_id=${r.request_id}. ${teammate} will answer.`);
  },
});

export const shutdownStatus = defineTool({
  name: 'shutdown_response',
  description: 'Check the status of a shutdown request you sent.',
  input: z.object({ request_id: z.string().describe('The request_id returned by shutdown_request.') }),
  agents: ['lead'],
  async run({ request_id }, _a, h) {
    const r = await h.team.requests.get(request_id);
    if (!r || r.kind !== 'shutdown') return fail(`No shutdown request ${request_id}.`);
    return ok(`${request_id}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
  },
});

export const shutdownAnswer = defineTool({
  name: 'shutdown_response',
  description: 'Answer a shutdown request addressed to you.',
  input: z.object({
    request_id: z.string().describe('The request_id of the shutdown_request you received.'),
    approve: z.boolean().describe('true to shut down now; false to keep working.'),
    reason: z.string().nullish().describe('Why, in a sentence.'),
  }),
  agents: ['teammate'],
  async run({ request_id, approve, reason }, a, h) {
    const r = await h.team.respondShutdown(a.name, request_id, approve, reason ?? '');
    if (!r.ok) return fail(r.error);
    if (approve) a.endAfterRound('shutdown');
    return ok(approve ? 'Shutdown approved: finishing now.' : 'Shutdown declined; keep working.');
  },
});

export const planDecision = defineTool({
  name: 'plan_approval',
  description: "Approve or reject a teammate's submitted plan.",
  input: z.object({
    request_id: z.string().describe('The request_id of the plan_approval_request.'),
    approve: z.boolean().describe('true to approve the plan.'),
    feedback: z.string().nullish().describe('What to change (required in spirit when rejecting).'),
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
  description: 'Put a running teammate into plan mode: it may not change files or run commands until a plan it submits for its current task is approved.',
  input: z.object({
    teammate: z.string().describe('The teammate to hold until its plan is approved.'),
    reason: z.string().nullish().describe('Why, in a sentence; the teammate is told.'),
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
  description: 'Submit your plan for approval before making changes; wait for the answer.',
  input: z.object({
    plan: z.string().min(1).describe('Your plan, step by step. File edits and shell commands are refused until it is approved.'),
  }),
  agents: ['teammate'],
  async run({ plan }, a, h) {
    const approver = h.settings().planApproval;
    const r = await h.team.submitPlan(a.name, plan, approver);
    return ok(`Plan submitted (request_id=${r.request_id}) to ${approver}. File edits and commands stay refused until it is approved. ${HOW_TO_WAIT}`);
  },
});

export const protocolTools = [shutdownRequest, shutdownStatus, shutdownAnswer, planDecision, requestPlan, planSubmit];
