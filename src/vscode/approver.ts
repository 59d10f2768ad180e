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
      // A toast shows one short line: a long or multi-line command is shown whole in a modal
      // dialog instead, so what is approved (and maybe always allowed) is what was read.
      const whole = command.length <= 200 && !/[\r\n]/.test(command);
      const answer = whole
        ? vscode.window.showWarningMessage(`${agent} wants to run \`${command}\``, 'Allow', 'Always allow this command', 'Deny')
        : vscode.window.showWarningMessage(`${agent} wants to run a ${command.length}-character command`, { modal: true, detail: command }, 'Allow', 'Always allow this command', 'Deny');
      let onAbort = (): void => undefined;
      const aborted = new Promise<undefined>((resolve) => {
        onAbort = () => resolve(undefined);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      // The signal lives as long as the agent: each answered approval takes its listener back.
      const choice = await Promise.race([answer, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
      if (choice === 'Always allow this command') {
        await state.update(KEY, [...new Set([...state.get<string[]>(KEY, []), command])]);
        return 'allow';
      }
      return choice === 'Allow' && !signal.aborted ? 'allow' : 'deny';
    },
  };
}
