// Getting a new worktree ready before its teammate's first model call (docs/file-formats.md,
// "Team settings"): the `copy` globs brought over from the main checkout, then the `setup`
// commands run in it, each line of it in the teammate's transcript. A failure is reported to
// the lead and the user, and the teammate starts anyway, told what failed.
import { formatShellResult, runShell } from '../exec/shell';
import type { CommandSandbox } from '../sandbox/sandbox';
import type { ProcessRegistry } from '../exec/process-group';
import type { Team } from '../team/team';
import { copyIntoWorktree } from '../worktree/copy-in';
import type { WorktreeManager } from '../worktree/manager';
import { worktreeSetupFor, type WorktreeSetup } from '../worktree/setup-config';
import type { TranscriptEvent } from './transcript';
import type { RuntimeEvent } from './types';

/** Output kept per setup command (its tail: where the error is). */
const OUTPUT_BYTES = 30_000;
/** Of which the transcript line and the model's notice show the last characters. */
const TAIL_CHARS = 1500;

export interface PrepEnv {
  team: Team;
  worktrees: WorktreeManager;
  processes: ProcessRegistry;
  emit(e: RuntimeEvent): void;
  /** The host's setting (agentTeams.worktree.setup), laid over `.team/settings.json`'s. */
  hostSetup: WorktreeSetup | undefined;
  /** Setup commands run where the agent's own commands do (docs/security.md). */
  sandbox: Pick<CommandSandbox, 'launch'>;
}

export interface PrepTarget {
  /** The agent whose transcript gets the output and whose processes the commands count as. */
  agent: string;
  worktree: string;
  workdir: string;
  note(e: TranscriptEvent): Promise<void>;
  signal: AbortSignal;
}

function tail(text: string): string {
  const t = text.trimEnd();
  return t.length > TAIL_CHARS ? `…${t.slice(-TAIL_CHARS)}` : t;
}

/**
 * Copies and sets up `target.workdir`. Returns the words for the agent's first prompt (what
 * was done, or what failed), or null when no setup is configured.
 */
export async function prepareWorktree(env: PrepEnv, target: PrepTarget): Promise<string | null> {
  const cfg = await worktreeSetupFor(env.team.root, env.hostSetup);
  if (!cfg.problem && !cfg.copy.length && !cfg.setup.length) return null;
  const note = (level: 'info' | 'warning' | 'error', text: string) => target.note({ type: 'notice', what: 'note', level, text: `Worktree setup: ${text}` });
  const problems: string[] = cfg.problem ? [cfg.problem] : [];
  const done: string[] = [];
  if (cfg.problem) await note('error', cfg.problem);
  if (cfg.copy.length) {
    const r = await copyIntoWorktree(env.team.root, target.workdir, cfg.copy, cfg.timeoutSeconds * 1000, target.signal);
    if (r.copied.length) await env.worktrees.noteCopied(target.worktree, r.copied).catch(() => undefined);
    const what = [
      r.copied.length ? `copied ${r.copied.join(', ')} from the main checkout` : `nothing matched ${cfg.copy.join(', ')} in the main checkout`,
      r.skipped.length ? `left ${r.skipped.join(', ')} as the branch has it` : '',
    ].filter(Boolean).join('; ');
    await note('info', `${what} (${(r.ms / 1000).toFixed(1)} s).`);
    if (r.copied.length) done.push(`copied ${r.copied.join(', ')}`);
    for (const p of r.problems) await note('error', p);
    problems.push(...r.problems);
  }
  for (const command of cfg.setup) {
    await note('info', `running \`${command}\``);
    const plan = await env.sandbox.launch(target.agent, target.workdir, command);
    if ('refused' in plan) {
      problems.push(`\`${command}\` was not run: ${plan.refused}`);
      break;
    }
    const r = await runShell(command, {
      cwd: target.workdir, timeoutMs: cfg.timeoutSeconds * 1000, maxOutputBytes: OUTPUT_BYTES,
      signal: target.signal, track: { registry: env.processes, owner: target.agent }, plan,
    });
    const failed = r.exitCode !== 0;
    await note(failed ? 'error' : 'info', `\`${command}\`: ${tail(formatShellResult(r))}`);
    if (!failed) {
      done.push(`ran \`${command}\``);
      continue;
    }
    problems.push(`\`${command}\` failed (${r.timedOut ? 'timed out' : r.exitCode === null ? 'killed' : `exit code ${r.exitCode}`}):\n${tail(r.output)}`);
    break;
  }
  if (!problems.length) return `Your worktree was set up before you started: ${done.join('; ')}.`;
  const report = `The setup of worktree "${target.worktree}" for ${target.agent} failed: ${problems.join('\n')}`;
  env.emit({ type: 'notice', level: 'error', agent: target.agent, message: `${report.split('\n')[0]} ${target.agent} starts anyway.` });
  await env.team.mailbox.send({ from: target.agent, to: 'lead', type: 'message', content: `${report}\nI start anyway and was told so.` }).catch(() => undefined);
  return `The setup of your worktree failed, so it may lack what the project needs (dependencies, local files); `
    + `fix it or tell the lead before relying on it. ${problems.join('\n')}`;
}
