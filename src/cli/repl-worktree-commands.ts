// The session's /spawn and its worktree commands (/worktrees /diff /merge /keep /remove):
// the same operations and wording as `agent-teams worktree …`, over the team session, so a
// teammate this session runs is seen as a user of its checkout.
import { relative } from 'node:path';
import type { SpawnInput } from '../core/runtime/types';
import { ReplUsageError, type ReplHost, type SlashCommand } from './repl-host';
import { rethrowDirty, worktreeGuards } from './worktree-commands';
import { keptText, mergeText, reconcileWarnings, removedText, statText, worktreeTable } from './worktree-format';

const guards = (rt: ReplHost['rt']) => worktreeGuards(rt);

/** `<name> [-m <message…>]` → the name and the commit message, if any. */
function nameAndMessage(args: string[], usage: string): { name: string; message?: string } {
  const [name, flag, ...rest] = args;
  if (!name || (flag !== undefined && (flag !== '-m' || !rest.length))) throw new ReplUsageError(`usage: ${usage}`);
  return { name, ...(flag ? { message: rest.join(' ') } : {}) };
}

function onlyName(args: string[], usage: string, flags: string[] = []): { name: string; flags: Set<string> } {
  const given = new Set(args.filter((a) => a.startsWith('--')));
  const words = args.filter((a) => !a.startsWith('--'));
  if (words.length !== 1 || [...given].some((f) => !flags.includes(f))) throw new ReplUsageError(`usage: ${usage}`);
  return { name: words[0]!, flags: given };
}

export const SPAWN_COMMAND: SlashCommand = {
  usage: '/spawn <name> <role> [--worktree] [--plan] [--model <id>] <prompt…>  |  /spawn <name> --agent <type> [--plan] [--model <id>] <prompt…>',
  summary: 'start a teammate yourself; --worktree: its own git worktree (branch wt/<name>); --plan: read-only until you approve its plan; '
    + '--agent: from an agent definition (agent-teams agents lists them; its name is the role); --model: its own model',
  async run(args, { rt, print }) {
    const o = spawnArgs(args, this.usage);
    const m = await rt.spawnTeammate(o, 'user');
    const notes = [m.model ? `model ${m.model}` : '', m.agent_type ? `from ${m.agent_type}` : '', m.plan_mode ? 'in plan mode: it changes nothing until you approve its plan' : '']
      .filter(Boolean);
    if (notes.length) print(`${m.name}: ${notes.join('; ')}.`);
    if (m.worktree) print(`${m.name} works in ${relative(rt.root, m.worktree) || '.'} on branch ${m.branch}.`);
  },
};

/** `/spawn` words and flags (anywhere in the line) → the spawn's input. */
export function spawnArgs(args: string[], usage: string): SpawnInput {
  const words: string[] = [];
  const flags = new Set<string>();
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--worktree' || a === '--plan') flags.add(a);
    else if (a === '--agent' || a === '--model') {
      const v = args[++i];
      if (!v || v.startsWith('--')) throw new ReplUsageError(`usage: ${usage}`);
      values[a] = v;
    } else words.push(a);
  }
  const agent = values['--agent'];
  const [name, ...rest] = words;
  const role = agent ? '' : rest.shift();
  if (!name || role === undefined || !rest.length) throw new ReplUsageError(`usage: ${usage}`);
  return {
    name, role, prompt: rest.join(' '), isolation: flags.has('--worktree') ? 'worktree' : 'none',
    ...(agent ? { agent_type: agent } : {}), ...(values['--model'] ? { model: values['--model'] } : {}),
    ...(flags.has('--plan') ? { plan_mode_required: true } : {}),
  };
}

export const WORKTREE_COMMANDS: Record<string, SlashCommand> = {
  worktrees: {
    usage: '/worktrees', summary: "teammates' git worktrees: name, branch, base, status (merged or not), path",
    async run(args, { rt, print }) {
      if (args.length) throw new ReplUsageError(`usage: ${this.usage}`);
      await guards(rt).repo();
      reconcileWarnings(await rt.worktrees.reconcile()).forEach((w) => print(`warning: ${w}`));
      print(worktreeTable(await rt.worktreeViews(), rt.root, '/remove'));
    },
  },
  diff: {
    usage: '/diff <name> [--stat]', summary: "what a worktree has that is not merged yet (uncommitted included)",
    async run(args, { rt, print }) {
      const { name, flags } = onlyName(args, this.usage, ['--stat']);
      await guards(rt).known(name);
      const d = await rt.worktrees.diff(name);
      print(flags.has('--stat') || !d.text ? statText(d) : d.text.trimEnd());
    },
  },
  merge: {
    usage: '/merge <name> [-m <message…>]', summary: 'merge wt/<name> into the current branch; a conflict is aborted and its files listed',
    async run(args, { rt, print }) {
      const { name, message } = nameAndMessage(args, this.usage);
      const w = await guards(rt).known(name);
      const r = await rethrowDirty(rt.worktrees.merge(name, { commitMessage: message }), `commit them first, or /merge ${name} -m <message> to commit them with the merge`);
      print(mergeText(name, w.branch, r));
    },
  },
  keep: {
    usage: '/keep <name> [-m <message…>]', summary: 'remove the checkout, keep the work on branch wt/<name>',
    async run(args, { rt, print }) {
      const { name, message } = nameAndMessage(args, this.usage);
      await guards(rt).known(name);
      await rt.assertWorktreeFree(name, ' (/shutdown or /stop)');
      print(keptText(await rethrowDirty(rt.worktrees.keep(name, { commitMessage: message }), `commit them first, or /keep ${name} -m <message> to commit them`)));
    },
  },
  remove: {
    usage: '/remove <name> [--force]', summary: 'remove checkout and branch; refuses uncommitted or unmerged work unless --force',
    async run(args, { rt, print }) {
      const { name, flags } = onlyName(args, this.usage, ['--force']);
      const force = flags.has('--force');
      await guards(rt).known(name);
      if (!force) await rt.assertWorktreeFree(name, ' (/shutdown or /stop), or add --force');
      // Forced: the teammates working there are stopped first, so no tool call of theirs runs
      // in a checkout that is being deleted (one run by another window refuses, and so do we).
      else for (const user of await rt.vacateWorktree(name)) print(`Stopped ${user} (it worked in worktree ${name}).`);
      print(removedText(await rethrowDirty(rt.worktrees.remove(name, { force }), `merge or keep it, or /remove ${name} --force to discard them`)));
    },
  },
};
