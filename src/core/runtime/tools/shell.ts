// The shell tools: bash in the agent's working directory (in the foreground, or as a
// background job), job_output and job_kill. Every command is judged by the permission
// rules first, falling back to the bash policy (docs/permissions.md, docs/tools.md), and
// runs in the sandbox when there is one (docs/security.md), or — a container teammate's — in
// its container, never on this machine (docs/containers.md).
import { z } from 'zod';
import { formatJobRead } from '../../exec/jobs';
import { formatShellResult } from '../../exec/shell';
import { suggestRules } from '../../permissions/decide';
import { decideCommand } from '../../sandbox/decide-command';
import { toolFamily, fail, MAX_OUTPUT, ok, type AgentHandle, type ToolHost, type ToolResult } from './definition';

/**
 * What this family's tools reach of the runner. No fake of it: these tools are only worth
 * testing with the real processes and sandbox, through the runner (test/runtime/sandbox-*,
 * idle-jobs, and the CLI's test/cli/sandbox*, permissions).
 */
export type ShellToolHost = Pick<ToolHost, 'settings' | 'approver' | 'jobs' | 'processes' | 'sandbox' | 'containers'>;
const defineTool = toolFamily<keyof ShellToolHost>();

const both = ['lead', 'teammate'] as const;

export const bash = defineTool({
  name: 'bash',
  description: 'Run bash -c (not interactive) in your working directory; still running at the time limit, it goes on as a job.',
  input: z.object({
    command: z.string().min(1),
    run_in_background: z.boolean().nullish().describe('Run it as a job (servers, long tests) read with job_output; a message comes when it ends.'),
    unsandboxed: z.boolean().nullish().describe('Outside the sandbox (always asks the user): only for what cannot run inside.'),
  }),
  agents: both,
  changesWorkspace: true,
  async run({ command, run_in_background, unsandboxed }, a, h) {
    if (h.containers.has(a.name)) return inContainer(command, !!run_in_background, !!unsandboxed, a, h);
    const s = h.settings();
    const box = await h.sandbox.state();
    if (box.mode === 'required' && !box.active) return fail(`Refused: the sandbox is required (agentTeams.sandbox is "required") but ${box.engine.reason}.`);
    const d = await decideCommand(s, command, { inside: box.active, unsandboxed: !!unsandboxed });
    if (d.verdict === 'deny') {
      return fail(d.rule ? `Refused: ${d.reason}.` : `Refused: shell commands are disabled (agentTeams.toolApproval.bash = deny) and no allow rule covers this one: ${d.reason}.`);
    }
    // A PreToolUse hook's allow answers the default question, never a deny or ask rule (docs/hooks.md);
    // a command outside the sandbox is always asked.
    if (unsandboxed || (d.verdict === 'ask' && !(d.fallback && a.hookApproved))) {
      // The rules "Always allow" may offer are worked out first (a parse, off the loop), so
      // "waiting for approval" is shown only once the question is really put to the user.
      // Outside the sandbox no rule can allow a command, so none is offered.
      const question = unsandboxed
        ? { reason: d.reason, suggestions: [], unsandboxed: true }
        : { reason: d.reason, suggestions: await suggestRules(command) };
      // Shown in the tree and the CLI, so a prompt nobody answered is visible, not a silent hang.
      a.setActivity({ kind: 'waiting-approval', what: `bash \`${command.length > 80 ? `${command.slice(0, 80)}…` : command}\`${unsandboxed ? ' outside the sandbox' : ''}` });
      const decision = await h.approver.bash(a.name, command, a.signal, question);
      a.setActivity({ kind: 'tool', tool: 'bash' });
      if (decision !== 'allow') return fail('The user denied this command.');
    }
    const plan = await h.sandbox.launch(a.name, a.cwd, command, { unsandboxed: !!unsandboxed, background: !!run_in_background });
    if ('refused' in plan) return fail(`Refused: ${plan.refused}.`);
    if (run_in_background) {
      const j = await h.jobs.start(a.name, command, { cwd: a.cwd, plan }).catch(async (e: unknown) => {
        await plan.release();
        throw e;
      });
      return ok(`Started background job ${j.id}. Read its output with job_output(job_id="${j.id}"); stop it with job_kill. You will get a message when it ends.`);
    }
    // Past the limit the command is not killed: it goes on as a background job (docs/tools.md).
    const r = await h.jobs.runForeground(a.name, command, { cwd: a.cwd, plan, waitMs: s.bashTimeoutSeconds * 1000, maxOutputBytes: MAX_OUTPUT, signal: a.signal });
    if ('job' in r) return ok(handedOverText(r.job.output, r.job.info.id, s.bashTimeoutSeconds));
    return { text: formatShellResult(r.result), isError: r.result.exitCode !== 0 };
  },
});

/** The call's result for a command still running at the limit, handed over as a job. */
function handedOverText(output: string, id: string, seconds: number): string {
  const body = output.length ? output.replace(/\n$/, '') : '(no output yet)';
  return `${body}\n\nStill running after ${seconds} s: not killed, it goes on as background job ${id}. A message with its exit code and last lines comes when it ends; job_output(job_id="${id}") reads it sooner, job_kill stops it.`;
}

/**
 * A container teammate's command: judged by the same rules as one in the sandbox (the container
 * is isolation at least as strong), run in its container; there is no outside for it to ask for.
 */
async function inContainer(command: string, background: boolean, unsandboxed: boolean, a: AgentHandle, h: ShellToolHost): Promise<ToolResult> {
  if (unsandboxed) return fail('Refused: you work in a container of your own; there is no outside of it for your commands to run in.');
  const s = h.settings();
  const d = await decideCommand(s, command, { inside: true, unsandboxed: false });
  if (d.verdict === 'deny') return fail(`Refused: ${d.reason}.`);
  if (d.verdict === 'ask' && !(d.fallback && a.hookApproved)) {
    a.setActivity({ kind: 'waiting-approval', what: `bash \`${command.length > 80 ? `${command.slice(0, 80)}…` : command}\` in its container` });
    const decision = await h.approver.bash(a.name, command, a.signal, { reason: d.reason, suggestions: await suggestRules(command) });
    a.setActivity({ kind: 'tool', tool: 'bash' });
    if (decision !== 'allow') return fail('The user denied this command.');
  }
  if (background) {
    const j = await h.jobs.startRemote(a.name, command, (signal) => h.containers.exec(a.name, command, { timeoutMs: Infinity, maxOutputBytes: MAX_OUTPUT, signal }));
    return ok(`Started background job ${j.id} in your container. Its output is read when it ends (job_output); stop it with job_kill. You will get a message when it ends.`);
  }
  // Stopped with the agent (stop, shutdown): the registry's stop aborts it, which kills its process group there.
  const stopper = new AbortController();
  const forward = () => stopper.abort();
  a.signal.addEventListener('abort', forward, { once: true });
  const untrack = h.processes.track(a.name, { command, stop: async () => stopper.abort() });
  try {
    const r = await h.containers.exec(a.name, command, { timeoutMs: s.bashTimeoutSeconds * 1000, maxOutputBytes: MAX_OUTPUT, signal: stopper.signal });
    return { text: formatShellResult(r), isError: r.exitCode !== 0 };
  } finally {
    untrack();
    a.signal.removeEventListener('abort', forward);
  }
}

export const jobOutput = defineTool({
  name: 'job_output',
  description: 'A background job\'s new output, and whether it ended.',
  input: z.object({ job_id: z.string().min(1) }),
  agents: both,
  async run({ job_id }, a, h) {
    return ok(formatJobRead(h.jobs.read(a.name, job_id)));
  },
});

export const jobKill = defineTool({
  name: 'job_kill',
  description: 'Stop a background job.',
  input: z.object({ job_id: z.string().min(1) }),
  agents: both,
  async run({ job_id }, a, h) {
    const j = await h.jobs.kill(a.name, job_id);
    return ok(j.state === 'killed' ? `Killed job ${j.id} and its child processes.` : `Job ${j.id} had already ended (exit code ${j.exitCode}).`);
  },
});

export const shellTools = [bash, jobOutput, jobKill];
