// The shell tool: bash in the agent's working directory, behind the user's bash policy.
import { z } from 'zod';
import { formatShellResult, runShell } from '../../exec/shell';
import { defineTool, fail, MAX_OUTPUT } from './definition';

export const bash = defineTool({
  name: 'bash',
  description: 'Run a shell command in your working directory. Output is capped; long commands time out.',
  input: z.object({ command: z.string().min(1).describe('Shell command to run in the workspace (bash -c). Avoid interactive commands.') }),
  agents: ['lead', 'teammate'],
  changesWorkspace: true,
  async run({ command }, a, h) {
    const policy = h.settings().bashPolicy;
    if (policy === 'deny') return fail('Shell commands are disabled by the setting agentTeams.toolApproval.bash = deny.');
    if (policy === 'ask') {
      // Shown in the tree and the CLI, so a prompt nobody answered is visible, not a silent hang.
      a.setActivity({ kind: 'waiting-approval', what: `bash \`${command.length > 80 ? `${command.slice(0, 80)}…` : command}\`` });
      const decision = await h.approver.bash(a.name, command, a.signal);
      a.setActivity({ kind: 'tool', tool: 'bash' });
      if (decision !== 'allow') return fail('The user denied this command.');
    }
    const r = await runShell(command, {
      cwd: a.cwd, timeoutMs: h.settings().bashTimeoutSeconds * 1000, maxOutputBytes: MAX_OUTPUT,
      signal: a.signal, track: { registry: h.processes, owner: a.name },
    });
    return { text: formatShellResult(r), isError: r.exitCode !== 0 };
  },
});

export const shellTools = [bash];
