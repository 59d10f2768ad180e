// What each command takes and does (package.json `contributes.commands`), as a table of
// specs (command-spec.ts); handlers.ts turns the table into registered commands.
import * as vscode from 'vscode';
import { z } from 'zod';
import { ParticipantName } from '../../shared/schemas';
import type { TreeNode } from '../views/nodes';
import { askText, pickParticipant, pickPendingPlan, pickTask, pickTasks } from './questions';
import { spec, type CommandSpec } from './command-spec';
import { actionSpec } from './spec-from-action';
import { ACTIONS, respawnInput, runAction, TaskId } from '../../core/session';
import { JOB_COMMANDS } from './job-commands';
import { MCP_COMMANDS } from './mcp-commands';
import { WATCH_COMMANDS } from './watch-commands';
import { askFirstPrompt, askNameAndRole, spawnOptions } from './spawn-questions';
import { WORKTREE_COMMANDS } from './worktree-commands';
import { QUEUE_COMMANDS } from './queue-commands';
import { LEAD_COMMANDS } from './lead-commands';
import { DOCS, openDoc, pickDoc } from './open-doc';

// Ask Lead's prompt, trimmed (the action table's Text keeps a message's spacing).
const text = z.string().trim().min(1, 'must not be empty');
const live = (s: string) => s !== 'shutdown';
/** The walkthrough (package.json `contributes.walkthroughs`), opened on its first step. */
export const openWalkthrough = () => vscode.commands.executeCommand('workbench.action.openWalkthrough', 'agent-teams.agent-teams#agentTeams.gettingStarted', false);
const RESTART_PROMPT = 'The user restarted you. Read your inbox and the task board, then carry on with your work where you left off.';

const memberName = (n: TreeNode) => (n.nodeKind === 'member' ? n.name : n.nodeKind === 'request' ? (n.record.subject ?? n.record.from) : undefined);
const teammateOf = (n: TreeNode) => (n.nodeKind === 'member' && !n.lead ? { teammate: n.name } : undefined);
const requestOf = (n: TreeNode) => (n.nodeKind === 'request' ? { requestId: n.record.request_id } : undefined);
const taskOf = (n: TreeNode) => (n.nodeKind === 'task' ? { id: n.task.id } : undefined);

export const COMMANDS: CommandSpec[] = [
  spec({
    id: 'agentTeams.askLead', title: 'Ask Lead', runsAgents: true,
    fields: [{ key: 'prompt', ask: () => askText({ title: 'Ask Lead', prompt: 'What should the team do?' }) }],
    schema: z.object({ prompt: text }),
    run: (a, ctx) => ctx.askLead(a.prompt),
  }),
  actionSpec(ACTIONS.spawn, {
    id: 'agentTeams.spawnTeammate', title: 'Spawn Teammate', runsAgents: true, startsAgents: true,
    // Asked when run without arguments: "name: role", the first instructions, then one menu
    // whose first row (Enter) starts it and whose other rows change definition, model, plan
    // mode and worktree (spawn-questions.ts).
    fields: [
      { key: 'name', ask: async (ctx, s) => askNameAndRole((await ctx.team()).root, s) },
      {
        key: 'role',
        ask: async (_c, s) => (s.agent_type ? String(s.agent_type) : askText({ title: 'Spawn Teammate', prompt: 'Role', placeHolder: 'backend engineer' })),
      },
      { key: 'prompt', ask: (_c, s) => askFirstPrompt(s) },
      { key: 'model', optional: true, ask: async (ctx, s) => spawnOptions((await ctx.team()).root, s, () => ctx.session.containerProblem()) },
    ],
  }),
  actionSpec(ACTIONS.requestPlan, {
    id: 'agentTeams.requestPlan', title: 'Request Plan',
    fields: [{ key: 'teammate', ask: async (ctx) => pickParticipant(await ctx.team(), 'Request Plan: who plans first?', { which: live }) }],
    // Files only: in force on whichever host runs the teammate, from its next tool call.
    fromNode: teammateOf,
  }),
  actionSpec(ACTIONS.send, {
    id: 'agentTeams.sendMessage', title: 'Send Message',
    fields: [
      { key: 'to', ask: async (ctx) => pickParticipant(await ctx.team(), 'Send Message: to whom?', { lead: true, which: live }) },
      { key: 'content', ask: (_c, s) => askText({ title: `Message to ${String(s.to)}`, prompt: 'Message' }) },
    ],
    fromNode: (n) => (memberName(n) ? { to: memberName(n) } : undefined),
  }),
  actionSpec(ACTIONS.broadcast, {
    id: 'agentTeams.broadcast', title: 'Broadcast',
    fields: [{ key: 'content', ask: () => askText({ title: 'Broadcast', prompt: 'Message to every teammate' }) }],
    after(r) {
      if (r.failed.length) void vscode.window.showWarningMessage(`Agent Teams: ${ACTIONS.broadcast.describe(r, { content: '' })}`);
      return r.sent;
    },
  }),
  actionSpec(ACTIONS.shutdown, {
    id: 'agentTeams.requestShutdown', title: 'Request Shutdown',
    fields: [{ key: 'teammate', ask: async (ctx) => pickParticipant(await ctx.team(), 'Request Shutdown', { which: live }) }],
    fromNode: teammateOf,
  }),
  actionSpec(ACTIONS.stop, {
    id: 'agentTeams.stopTeammate', title: 'Stop Teammate',
    fields: [{ key: 'teammate', ask: async (ctx) => pickParticipant(await ctx.team(), 'Stop Teammate', { which: live }) }],
    fromNode: teammateOf,
  }),
  spec({
    // Same name: the transcript is resumed (README.md, "Restart Teammate"); role, model,
    // definition and isolation as the roster has them.
    id: 'agentTeams.restartTeammate', title: 'Restart Teammate', runsAgents: true,
    fields: [{ key: 'teammate', ask: async (ctx) => pickParticipant(await ctx.team(), 'Restart Teammate', { which: (s) => s === 'shutdown' }) }],
    schema: z.object({ teammate: ParticipantName }),
    fromNode: teammateOf,
    async run(a, ctx) {
      const m = await (await ctx.team()).member(a.teammate);
      if (!m) throw new Error(`${a.teammate} is not on the team`);
      if (m.status !== 'shutdown') throw new Error(`${a.teammate} is running (${m.status}): nothing to restart`);
      await ctx.agents();
      return runAction(ACTIONS.spawn, ctx.scope, respawnInput(m, RESTART_PROMPT));
    },
  }),
  actionSpec(ACTIONS.approvePlan, {
    id: 'agentTeams.approvePlan', title: 'Approve Plan',
    fields: [
      { key: 'requestId', ask: async (ctx) => pickPendingPlan(await ctx.team(), 'Approve Plan') },
      { key: 'feedback', optional: true, ask: () => askText({ title: 'Approve Plan', prompt: 'Feedback (optional)', optional: true }) },
    ],
    fromNode: requestOf,
    after: (_r, _a, ctx) => ctx.planDecided(),
  }),
  actionSpec(ACTIONS.rejectPlan, {
    id: 'agentTeams.rejectPlan', title: 'Reject Plan',
    fields: [
      { key: 'requestId', ask: async (ctx) => pickPendingPlan(await ctx.team(), 'Reject Plan') },
      { key: 'feedback', ask: () => askText({ title: 'Reject Plan', prompt: 'What should change?' }) },
    ],
    fromNode: requestOf,
    after: (_r, _a, ctx) => ctx.planDecided(),
  }),
  spec({
    id: 'agentTeams.reviewPlan', title: 'Review Plan',
    fields: [{ key: 'requestId', ask: async (ctx) => pickPendingPlan(await ctx.team(), 'Review Plan') }],
    schema: z.object({ requestId: z.string().min(1) }),
    fromNode: requestOf,
    run: (a, ctx) => ctx.watch.reviewPlan(a.requestId),
  }),
  actionSpec(ACTIONS.createTask, {
    id: 'agentTeams.createTask', title: 'Create Task',
    fields: [
      { key: 'subject', ask: () => askText({ title: 'Create Task', prompt: 'Subject' }) },
      { key: 'description', optional: true, ask: () => askText({ title: 'Create Task', prompt: 'Description (optional)', optional: true }) },
      { key: 'blockedBy', optional: true, ask: async (ctx) => pickTasks(await ctx.team(), 'Create Task: blocked by') },
      // Always offered (Enter skips it): file ownership starts from here as well as from the
      // lead's task_create and the CLI's --files (README, "Integrating parallel work").
      {
        key: 'files', optional: true,
        ask: () => askText({ title: 'Create Task', prompt: 'Files it may change, as globs separated by commas (optional): nobody else edits them while it is in progress', placeHolder: 'src/parser/**, docs/parser.md', optional: true }),
      },
    ],
  }),
  spec({
    id: 'agentTeams.openInbox', title: 'Open Inbox',
    fields: [],
    schema: z.object({ name: ParticipantName.optional() }),
    fromNode: (n) => ({ name: memberName(n) }),
    run: (a, ctx) => ctx.openInbox(a.name),
  }),
  spec({
    id: 'agentTeams.setApiKey', title: 'Set API Key',
    fields: [{ key: 'apiKey', ask: () => askText({ title: 'Set API Key', prompt: 'Anthropic API key (stored in VS Code secret storage; empty removes it)', password: true, optional: true }) }],
    schema: z.object({ apiKey: z.string() }),
    run: (a, ctx) => ctx.setApiKey(a.apiKey),
  }),
  spec({
    id: 'agentTeams.setOpenAIKey', title: 'Set OpenAI API Key',
    fields: [{ key: 'apiKey', ask: () => askText({ title: 'Set OpenAI API Key', prompt: 'Key for openai: models (stored in VS Code secret storage; empty removes it)', password: true, optional: true }) }],
    schema: z.object({ apiKey: z.string() }),
    run: (a, ctx) => ctx.setOpenAIKey(a.apiKey),
  }),
  spec({
    id: 'agentTeams.gettingStarted', title: 'Get Started', fields: [], schema: z.object({}),
    run: async () => openWalkthrough(),
  }),
  spec({
    id: 'agentTeams.openDoc', title: 'Open Documentation',
    fields: [{ key: 'doc', ask: () => pickDoc() }],
    schema: z.object({ doc: z.enum(DOCS) }),
    run: (a) => openDoc(a.doc),
  }),
  spec({
    id: 'agentTeams.showLog', title: 'Show Log', fields: [], schema: z.object({}),
    run: async (_a, ctx) => ctx.log.show(true),
  }),
  actionSpec(ACTIONS.completeTask, {
    id: 'agentTeams.completeTask', title: 'Complete Task',
    fields: [{ key: 'id', ask: async (ctx) => pickTask(await ctx.team(), 'Complete Task', true) }],
    fromNode: taskOf,
    after: (r) => r.task,
  }),
  spec({
    id: 'agentTeams.editTask', title: 'Edit Task',
    fields: [{ key: 'id', ask: async (ctx) => pickTask(await ctx.team(), 'Edit Task', false) }],
    schema: z.object({ id: TaskId }),
    fromNode: taskOf,
    run: (a, ctx) => ctx.editTask(a.id),
  }),
  spec({
    id: 'agentTeams.refresh', title: 'Refresh', fields: [], schema: z.object({}),
    run: async (_a, ctx) => ctx.refresh(),
  }),
  ...LEAD_COMMANDS,
  ...WORKTREE_COMMANDS,
  ...QUEUE_COMMANDS,
  ...MCP_COMMANDS,
  ...JOB_COMMANDS,
  ...WATCH_COMMANDS,
];

export function titleOf(id: string): string {
  return COMMANDS.find((c) => c.id === id)?.title ?? id;
}

export function showRestricted(): void {
  void vscode.window.showWarningMessage('Agents do not run in Restricted Mode. Trust this workspace to start the team.', 'Manage Workspace Trust')
    .then((b) => b && vscode.commands.executeCommand('workbench.trust.manage'));
}
