// Approvals: a bash call no permission rule allowed (docs/permissions.md: Allow / Always allow
// this command / Always allow `<prefix>:*` / Deny — "Always" writes the rule to the workspace's
// agentTeams.permissions.allow), an ask rule on Edit/Write (the change in the diff editor with
// Allow / Deny before it is written), an MCP tool call no rule allows (Allow / Always allow this tool / … all of its server / Deny), and an MCP
// server's first start, its command line shown (Start / Always start / Don't start; docs/mcp.md),
// and a sandboxed command's host nobody allowed (Allow / Always allow: written to the
// workspace's agentTeams.sandbox.allowedDomains / Deny; docs/security.md).
// "Always allow" for an MCP tool writes `mcp__<server>__<tool>` or `mcp__<server>` to the same
// list as bash's; "Always start" is remembered per workspace. A dismissed notification or a
// stopped agent is a no.
import * as vscode from 'vscode';
import { type Approver, askReason, type BashDecision, type BashQuestion, type FileChangeQuestion, type McpStartRequest, type NetworkDecision, proposalText, type TeamAnswer, type TeammateProposal } from '../../core/session';
import type { BashAsks } from './bash-asks';
import { keepTrusted } from './content-trust';

/** Commands "always allowed" before rules existed (kept so nobody is asked again). */
const KEY = 'agentTeams.alwaysAllowedCommands';
const EXACT = 'Always allow this command';
const PROPOSED_SCHEME = 'agent-teams-proposed';
/** MCP tools "always allowed" before their rules went to the settings (migrated on first use). */
const MCP_TOOLS_KEY = 'agentTeams.alwaysAllowedMcpTools';
const MCP_ALWAYS = 'Always allow this tool';
const MCP_STARTS_KEY = 'agentTeams.allowedMcpServerStarts';
const NET_ALWAYS = 'Always allow';
const TEAM_START = 'Start';
const TEAM_DECLINE = 'Decline…';

/** The user's choice, or undefined once `signal` aborts; the listener is taken back either way. */
async function untilAborted<T>(answer: Thenable<T | undefined>, signal: AbortSignal): Promise<T | undefined> {
  let onAbort = (): void => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([answer, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

async function remember(state: vscode.Memento, key: string, value: string): Promise<void> {
  await state.update(key, [...new Set([...state.get<string[]>(key, []), value])]);
}

export function createApprover(state: vscode.Memento, asks?: BashAsks, subscriptions: vscode.Disposable[] = []): Approver {
  const proposed = new Map<string, string>();
  let seq = 0;
  subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
    provideTextDocumentContent: (uri) => proposed.get(uri.query) ?? '',
  }));
  return {
    async bash(agent: string, command: string, signal: AbortSignal, question?: BashQuestion): Promise<BashDecision> {
      if (state.get<string[]>(KEY, []).includes(command)) return 'allow';
      if (signal.aborted) return 'deny';
      const [exactRule, prefixRule] = question?.suggestions ?? [];
      const prefixLabel = prefixRule ? `Always allow \`${prefixRule.slice(5, -1)}\`` : undefined;
      const buttons = ['Allow', ...(exactRule ? [EXACT] : []), ...(prefixLabel ? [prefixLabel] : []), 'Deny'];
      const why = shortReason(question?.reason);
      // A toast shows one short line: a long or multi-line command is shown whole in a modal
      // dialog instead, so what is approved (and maybe always allowed) is what was read.
      const whole = command.length <= 200 && !/[\r\n]/.test(command);
      const outside = question?.unsandboxed ? ' outside the sandbox' : '';
      const answer = whole
        ? vscode.window.showWarningMessage(`${agent} wants to run \`${command}\`${outside}${why ? ` — ${why}` : ''}`, ...buttons)
        : vscode.window.showWarningMessage(`${agent} wants to run a ${command.length}-character command${outside}`, { modal: true, detail: `${command}${why ? `\n\n${why}` : ''}` }, ...buttons);
      // The agent's transcript panel may answer too (bash-asks.ts); the first answer wins.
      const inline = asks?.add(agent, command);
      const either = inline ? Promise.race([answer, inline.answered]) : answer;
      // The signal lives as long as the agent: each answered approval takes its listener back.
      const choice = await untilAborted(either, signal).finally(() => inline?.done());
      const rule = choice === EXACT ? exactRule : choice !== undefined && choice === prefixLabel ? prefixRule : undefined;
      if (rule && !signal.aborted) {
        await addAllowRule(rule);
        return 'allow';
      }
      return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
    },

    async network(agent: string, host: string, signal: AbortSignal): Promise<NetworkDecision> {
      if (signal.aborted) return 'deny';
      const answer = vscode.window.showWarningMessage(`${agent}'s command wants to reach ${host}, which the sandbox does not allow (agentTeams.sandbox.allowedDomains).`, 'Allow', NET_ALWAYS, 'Deny');
      const choice = await untilAborted(answer, signal);
      if (signal.aborted) return 'deny';
      if (choice === NET_ALWAYS) {
        await addAllowedDomain(host);
        return 'always';
      }
      return choice === 'Allow' ? 'allow' : 'deny';
    },

    async fileChange(agent: string, change: FileChangeQuestion, signal: AbortSignal): Promise<BashDecision> {
      if (signal.aborted) return 'deny';
      const id = String(++seq);
      proposed.set(id, change.after);
      const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: change.abs, query: id });
      const left = change.before === null ? vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `${change.abs}.new`, query: 'empty' }) : vscode.Uri.file(change.abs);
      const verb = change.before === null ? 'create' : 'change';
      try {
        await vscode.commands.executeCommand('vscode.diff', left, right, `${agent} wants to ${verb} ${change.path} (${change.why ? 'always asked' : change.rule})`, { preview: true });
        const choice = await untilAborted(vscode.window.showWarningMessage(`${agent} wants to ${verb} ${change.path} — ${change.why ?? `the rule ${change.rule} asks first`}. See the diff.`, 'Allow', 'Deny'), signal);
        return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
      } finally {
        proposed.delete(id);
        await closeDiff(right);
      }
    },

    async tool(agent: string, what: string, reason: string, signal: AbortSignal): Promise<BashDecision> {
      if (signal.aborted) return 'deny';
      const choice = await untilAborted(vscode.window.showWarningMessage(`${agent} wants to ${what} — ${shortReason(reason)}`, 'Allow', 'Deny'), signal);
      return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
    },

    async mcpTool(agent: string, tool: string, input: unknown, signal: AbortSignal, suggestions: string[] = [tool]): Promise<BashDecision> {
      // "Always allow this tool" was once kept in workspace state: such a tool's rule is written
      // to the settings now (where bash's go), and the old entry dropped.
      if (state.get<string[]>(MCP_TOOLS_KEY, []).includes(tool)) {
        await addAllowRule(suggestions[0] ?? tool);
        await state.update(MCP_TOOLS_KEY, state.get<string[]>(MCP_TOOLS_KEY, []).filter((t) => t !== tool));
        return 'allow';
      }
      if (signal.aborted) return 'deny';
      const [toolRule, serverRule] = suggestions;
      const serverLabel = serverRule ? `Always allow all of ${serverRule}` : undefined;
      const buttons = ['Allow', ...(toolRule ? [MCP_ALWAYS] : []), ...(serverLabel ? [serverLabel] : []), 'Deny'];
      // As for bash: short arguments fit a toast, longer ones are shown whole in a dialog.
      const args = JSON.stringify(input ?? {});
      const answer = args.length <= 150
        ? vscode.window.showWarningMessage(`${agent} wants to call the MCP tool ${tool} with ${args}`, ...buttons)
        : vscode.window.showWarningMessage(`${agent} wants to call the MCP tool ${tool}`, { modal: true, detail: JSON.stringify(input, null, 2).slice(0, 4000) }, ...buttons);
      const choice = await untilAborted(answer, signal);
      const rule = choice === MCP_ALWAYS ? toolRule : choice !== undefined && choice === serverLabel ? serverRule : undefined;
      if (rule && !signal.aborted) {
        await addAllowRule(rule);
        return 'allow';
      }
      return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
    },

    async confirmTeam(team: readonly TeammateProposal[], signal: AbortSignal): Promise<TeamAnswer> {
      if (signal.aborted) return { start: false };
      // A toast shows one paragraph: the teammates one after another, each with role, model and plan mode.
      const who = team.length === 1 ? `a teammate: ${proposalText(team[0]!)}` : `a team of ${team.length}: ${team.map(proposalText).join('; ')}`;
      const answer = vscode.window.showInformationMessage(`The lead proposes ${who}. Start ${team.length === 1 ? 'it' : 'them'}?`, TEAM_START, TEAM_DECLINE);
      const choice = await untilAborted(answer, signal);
      if (choice === TEAM_START && !signal.aborted) return { start: true };
      if (choice !== TEAM_DECLINE || signal.aborted) return { start: false };
      // What to change goes back to the lead with the refusal; Escape declines without a reason.
      const reason = await untilAborted(Promise.resolve(vscode.window.showInputBox({
        title: 'Decline the proposed team', prompt: 'What should the lead change? (optional: the lead reads it)', placeHolder: 'e.g. two teammates are enough; no opus', ignoreFocusOut: true,
      })), signal);
      return reason?.trim() ? { start: false, reason: reason.trim() } : { start: false };
    },

    async mcpServerStart(req: McpStartRequest, signal: AbortSignal): Promise<boolean> {
      // What was approved is the whole entry (command line, cwd, env; or URL and headers):
      // any change to it in .mcp.json asks again.
      const key = `${req.server}\u0000${req.details}`;
      if (state.get<string[]>(MCP_STARTS_KEY, []).includes(key)) return true;
      const verb = req.transport !== 'stdio' ? 'connect to' : 'run';
      const answer = vscode.window.showWarningMessage(`Start the MCP server "${req.server}" from .mcp.json? It will ${verb}:`,
        { modal: true, detail: req.details }, 'Start', 'Always start', "Don't start");
      const choice = await untilAborted(answer, signal);
      if (choice === 'Always start') await remember(state, MCP_STARTS_KEY, key);
      return (choice === 'Start' || choice === 'Always start') && !signal.aborted;
    },
  };
}

/** The reason, short enough for a toast. */
function shortReason(reason: string | undefined): string {
  const r = askReason(reason);
  return r.length > 160 ? `${r.slice(0, 157)}…` : r;
}

/** Appends `host` to the workspace's agentTeams.sandbox.allowedDomains. */
async function addAllowedDomain(host: string): Promise<void> {
  const c = vscode.workspace.getConfiguration('agentTeams');
  const current = c.inspect<unknown>('sandbox.allowedDomains')?.workspaceValue;
  const list = Array.isArray(current) ? current : [];
  if (!list.includes(host)) await keepTrusted('.vscode/settings.json', () => c.update('sandbox.allowedDomains', [...list, host], vscode.ConfigurationTarget.Workspace));
}

/** Appends `rule` to the workspace's agentTeams.permissions.allow (not the user's). */
async function addAllowRule(rule: string): Promise<void> {
  const c = vscode.workspace.getConfiguration('agentTeams');
  const current = c.inspect<unknown>('permissions.allow')?.workspaceValue;
  const list = Array.isArray(current) ? current : [];
  if (!list.includes(rule)) await keepTrusted('.vscode/settings.json', () => c.update('permissions.allow', [...list, rule], vscode.ConfigurationTarget.Workspace));
}

async function closeDiff(modified: vscode.Uri): Promise<void> {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === modified.toString()) {
        await vscode.window.tabGroups.close(tab).then(undefined, () => undefined);
      }
    }
  }
}
