// The Notification event (docs/hooks.md): every question put to the user — a command, a
// file change, an MCP call or server, a proposed team — first tells the Notification hooks,
// without waiting for them (a slow hook never delays the question). The Approver a host
// gives is wrapped, so no question path can forget it.
import type { Approver } from '../runtime/types';

export type Notify = (agent: string, message: string) => void;

export function notifyingApprover(base: Approver, notify: Notify): Approver {
  const a: Approver = {
    bash: (agent, command, signal, q) => {
      notify(agent, `${agent} wants to run a shell command: ${command}`);
      return base.bash(agent, command, signal, q);
    },
  };
  if (base.fileChange) a.fileChange = (agent, change, signal) => {
    notify(agent, `${agent} wants to ${change.before === null ? 'create' : 'change'} ${change.path}`);
    return base.fileChange!(agent, change, signal);
  };
  if (base.tool) a.tool = (agent, what, reason, signal) => {
    notify(agent, `${agent} wants to ${what} (${reason})`);
    return base.tool!(agent, what, reason, signal);
  };
  if (base.mcpTool) a.mcpTool = (agent, tool, input, signal, suggestions) => {
    notify(agent, `${agent} wants to call the MCP tool ${tool}`);
    return base.mcpTool!(agent, tool, input, signal, suggestions);
  };
  if (base.mcpServerStart) a.mcpServerStart = (req, signal) => {
    notify('lead', `MCP server "${req.server}" from .mcp.json wants to start: ${req.commandLine}`);
    return base.mcpServerStart!(req, signal);
  };
  if (base.confirmTeam) a.confirmTeam = (team, signal) => {
    notify('lead', `The lead proposes a team: ${team.map((t) => t.name).join(', ')}`);
    return base.confirmTeam!(team, signal);
  };
  return a;
}
