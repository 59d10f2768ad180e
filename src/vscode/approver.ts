// Bash approval for agentTeams.toolApproval.bash = "ask": one notification per call with
// Allow / Always allow this command / Deny. "Always" is remembered per workspace; a
// dismissed notification or a stopped agent counts as Deny.
import * as vscode from 'vscode';
import type { Approver, BashDecision } from '../core/runtime/types';

const KEY = 'agentTeams.alwaysAllowedCommands';

export function createApprover(state: vscode.Memento): Approver {
  return {
    async bash(agent: string, command: string, signal: AbortSignal): Promise<BashDecision> {
      const allowed = state.get<string[]>(KEY, []);
      if (allowed.includes(command)) return 'allow';
      if (signal.aborted) return 'deny';
      const shown = command.length > 200 ? `${command.slice(0, 200)}…` : command;
      const answer = vscode.window.showWarningMessage(`${agent} wants to run \`${shown}\``, 'Allow', 'Always allow this command', 'Deny');
      const aborted = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
      const choice = await Promise.race([answer, aborted]);
      if (choice === 'Always allow this command') {
        await state.update(KEY, [...new Set([...state.get<string[]>(KEY, []), command])]);
        return 'allow';
      }
      return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
    },
  };
}
