// The @team chat participant (id agentTeams.team; docs/models.md, "@team in the Chat view"):
// a request is the user's prompt to the lead, by the path Ask Lead takes; the response streams
// the lead's words and a progress line for what the team does meanwhile, offers the questions
// raised while it runs (commands to allow, plans to approve) as buttons — the notification
// asks too and the first answer wins — and ends with Open Transcript and Show Changes.
// /status, /tasks and /spawn answer from the team's files. The words are core's (chat-words.ts).
import * as vscode from 'vscode';
import { ACTIONS, type ActionScope, type Disposable, parseSpawn, progressLine, runAction, statusMarkdown, tasksMarkdown, type TeamSession } from '../../core/session';
import type { BashAsks } from '../approvals/bash-asks';

/** The hidden command the chat's Allow / Deny buttons run (its handler: answerCommandHandler). */
export const ANSWER_COMMAND = 'agentTeams.answerCommand';

export interface ChatDeps {
  session: TeamSession;
  /** Where the window's user actions run (/spawn is the Spawn Teammate action). */
  scope: ActionScope;
  /** The session with its agents running (started on first use; throws with the reason). */
  agents(): Promise<TeamSession>;
  asks: BashAsks;
  log: vscode.LogOutputChannel;
}

/** The part of vscode.ChatResponseStream the participant writes to (a test passes a recorder). */
export type ChatStream = Pick<vscode.ChatResponseStream, 'markdown' | 'progress' | 'button'>;

export function answerCommandHandler(asks: BashAsks) {
  return (arg: unknown): boolean => {
    const a = (arg ?? {}) as { id?: unknown; decision?: unknown };
    if (typeof a.id !== 'string' || (a.decision !== 'allow' && a.decision !== 'deny')) return false;
    const answered = asks.answer(a.id, a.decision);
    if (!answered) void vscode.window.showInformationMessage('Agent Teams: that question was answered already.');
    return answered;
  };
}

export function chatHandler(d: ChatDeps) {
  return async (request: Pick<vscode.ChatRequest, 'prompt' | 'command'>, _context: unknown, stream: ChatStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> => {
    try {
      if (request.command === 'status') return await status(d.session, stream);
      if (request.command === 'tasks') {
        stream.markdown(tasksMarkdown(await d.session.view.tasks()));
        return {};
      }
      if (request.command === 'spawn') return await spawn(d, request.prompt, stream);
      return await askLead(d, request.prompt, stream, token);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      d.log.warn(`@team: ${message}`);
      stream.markdown(`**Could not do that:** ${message}`);
      return { errorDetails: { message } };
    }
  };
}

async function status(session: TeamSession, stream: ChatStream): Promise<vscode.ChatResult> {
  const team = session.view;
  const [config, tasks, pending] = await Promise.all([team.roster(), team.tasks(), team.requests({ status: 'pending' })]);
  stream.markdown(statusMarkdown(config, tasks, pending, (a) => session.activity(a), session.settings().model));
  return {};
}

async function spawn(d: ChatDeps, text: string, stream: ChatStream): Promise<vscode.ChatResult> {
  const p = parseSpawn(text);
  if (!p.ok) {
    stream.markdown(p.error);
    return { errorDetails: { message: p.error } };
  }
  await d.agents();
  const m = await runAction(ACTIONS.spawn, d.scope, p.input);
  stream.markdown(`Spawned **${m.name}** (${m.role}) on ${m.model ?? d.session.settings().model}.`);
  stream.button({ command: 'agentTeams.openTranscript', arguments: [{ agent: m.name }], title: `Open ${m.name}'s Transcript` });
  return {};
}

async function askLead(d: ChatDeps, prompt: string, stream: ChatStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  if (!prompt.trim()) {
    stream.markdown('Say what the lead should do, or use /status, /tasks or /spawn.');
    return {};
  }
  const session = await d.agents();
  const subs: Disposable[] = [];
  let attempt = 1;
  let wrote = false;
  subs.push(session.onEvent((e) => {
    if (e.type === 'text_delta' && e.agent === 'lead') {
      // A retry streams the reply again from its start: what was shown stays, marked.
      if (e.attempt !== attempt) stream.markdown('\n\n*(the model call was retried; its answer again:)*\n\n');
      attempt = e.attempt;
      stream.markdown(e.text);
      wrote = true;
      return;
    }
    if (e.type === 'activity' && e.agent === 'lead' && e.activity.kind === 'requesting' && wrote) {
      stream.markdown('\n\n');
      wrote = false;
      attempt = 1;
      return;
    }
    const line = progressLine(e);
    if (line) stream.progress(line);
  }));
  const shown = new Set<string>();
  const offerAsks = () => {
    for (const a of d.asks.all()) {
      if (shown.has(a.id)) continue;
      shown.add(a.id);
      stream.markdown(`\n\n**${a.agent}** wants to run \`${a.command.replace(/`/g, "'").slice(0, 300)}\`. Answer here or in the notification:\n\n`);
      stream.button({ command: ANSWER_COMMAND, arguments: [{ id: a.id, decision: 'allow' }], title: 'Allow' });
      stream.button({ command: ANSWER_COMMAND, arguments: [{ id: a.id, decision: 'deny' }], title: 'Deny' });
    }
  };
  const offerPlans = async () => {
    if (session.settings().planApproval !== 'user') return;
    for (const r of await session.view.requests({ status: 'pending', kind: 'plan' })) {
      if (shown.has(r.request_id)) continue;
      shown.add(r.request_id);
      const plan = typeof (r as { plan?: unknown }).plan === 'string' ? (r as unknown as { plan: string }).plan : '';
      stream.markdown(`\n\n**${r.from}** asks you to approve its plan${plan ? `:\n\n${plan.slice(0, 2000).replace(/^/gm, '> ')}` : '.'}\n\n`);
      stream.button({ command: 'agentTeams.approvePlan', arguments: [{ requestId: r.request_id }], title: 'Approve Plan' });
      stream.button({ command: 'agentTeams.rejectPlan', arguments: [{ requestId: r.request_id }], title: 'Reject Plan…' });
    }
  };
  subs.push(d.asks.onDidChange(offerAsks));
  subs.push(await session.subscribe((what) => { if (what === 'requests') void offerPlans().catch(() => undefined); }));
  const cancel = token.onCancellationRequested(() => session.cancelLeadTurn());
  try {
    offerAsks();
    await offerPlans();
    await runAction(ACTIONS.askLead, d.scope, { prompt });
  } finally {
    cancel.dispose();
    for (const s of subs) s.dispose();
  }
  stream.markdown('\n');
  stream.button({ command: 'agentTeams.openTranscript', arguments: [{ agent: 'lead' }], title: 'Open Transcript' });
  stream.button({ command: 'agentTeams.showChanges', arguments: [{}], title: 'Show Changes' });
  return {};
}
