// The session's /spawn and its worktree commands (/worktrees /diff /merge /keep /remove):
// the user actions of `agent-teams worktree …` (core/session/actions) with this interface's
// words, over the team session, so a teammate this session runs is seen as a user of its
// checkout.
import { relative } from 'node:path';
import { ACTIONS, spawnNotes, type SpawnInput } from '../core/session';
import { slashAction } from './repl-action';
import { ReplUsageError, type SlashCommand } from './repl-host';
import { worktreeAdvice } from './worktree-commands';
import { keptText, mergeText, reconcileWarnings, removedText, statText, worktreeTable } from './worktree-format';

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

export const SPAWN_COMMAND: SlashCommand = slashAction(ACTIONS.spawn, {
  usage: '/spawn <name> <role> [--worktree|--container] [--plan] [--model <id>] <prompt…>  |  /spawn <name> --agent <type> [--container] [--plan] [--model <id>] <prompt…>',
  summary: 'start a teammate yourself; --worktree: its own git worktree (branch wt/<name>); --container: its own container (branch team/<name>, docs/containers.md); --plan: read-only until you approve its plan; '
    + '--agent: from an agent definition (agent-teams agents lists them; its name is the role); --model: its own model',
  args: (words, _h, usage) => spawnArgs(words, usage),
  text(m, _a, { rt }) {
    const notes = spawnNotes(m);
    return [
      ...(notes ? [notes] : []),
      ...(m.worktree ? [`${m.name} works in ${relative(rt.root, m.worktree) || '.'} on branch ${m.branch}.`] : []),
      ...(m.container ? [`${m.name} works in a container of its own on branch ${m.branch}.`] : []),
    ];
  },
});

/** `/spawn` words and flags (anywhere in the line) → the spawn's input. */
export function spawnArgs(args: string[], usage: string): SpawnInput {
  const words: string[] = [];
  const flags = new Set<string>();
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--worktree' || a === '--container' || a === '--plan') flags.add(a);
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
    name, role, prompt: rest.join(' '),
    // No flag: the agent definition's isolation, else none.
    ...(flags.has('--container') ? { isolation: 'container' as const } : flags.has('--worktree') ? { isolation: 'worktree' as const } : {}),
    ...(agent ? { agent_type: agent } : {}), ...(values['--model'] ? { model: values['--model'] } : {}),
    ...(flags.has('--plan') ? { plan_mode_required: true } : {}),
  };
}

export const WORKTREE_COMMANDS: Record<string, SlashCommand> = {
  worktrees: slashAction(ACTIONS.worktreeList, {
    usage: '/worktrees', summary: "teammates' git worktrees: name, branch, base, status (merged or not), path",
    args(words, _h, usage) {
      if (words.length) throw new ReplUsageError(`usage: ${usage}`);
      return {};
    },
    text: (r, _a, { rt }) => [...reconcileWarnings(r.report).map((w) => `warning: ${w}`), worktreeTable(r.list, rt.root, '/remove')],
  }),
  diff: slashAction(ACTIONS.worktreeDiff, {
    usage: '/diff <name> [--stat]', summary: "what a worktree has that is not merged yet (uncommitted included)",
    args: (words, _h, usage) => ({ name: onlyName(words, usage, ['--stat']).name }),
    // --stat is this interface's own: the action's arguments are the name alone.
    text: (d, _a, _h, words) => (words.includes('--stat') || !d.text ? statText(d) : d.text.trimEnd()),
  }),
  merge: slashAction(ACTIONS.worktreeMerge, {
    usage: '/merge <name> [-m <message…>]', summary: 'merge wt/<name> into the current branch; a conflict is aborted and its files listed',
    args: (words, _h, usage) => nameAndMessage(words, usage),
    failure: (err, a) => worktreeAdvice({ dirty: `commit them first, or /merge ${a.name} -m <message> to commit them with the merge` })(err),
    text: (r, a) => mergeText(a.name, r!.branch, r!),
  }),
  keep: slashAction(ACTIONS.worktreeKeep, {
    usage: '/keep <name> [-m <message…>]',
    args: (words, _h, usage) => nameAndMessage(words, usage),
    failure: (err, a) => worktreeAdvice({ dirty: `commit them first, or /keep ${a.name} -m <message> to commit them`, inUse: ' (/shutdown or /stop)' })(err),
    text: (w) => keptText(w!),
  }),
  remove: slashAction(ACTIONS.worktreeRemove, {
    usage: '/remove <name> [--force]', summary: 'remove checkout and branch; refuses uncommitted or unmerged work unless --force',
    args(words, _h, usage) {
      const { name, flags } = onlyName(words, usage, ['--force']);
      return { name, force: flags.has('--force') };
    },
    failure: (err, a) => worktreeAdvice({ dirty: `merge or keep it, or /remove ${a.name} --force to discard them`, inUse: ' (/shutdown or /stop), or add --force' })(err),
    text: (r, a) => [...r!.stopped.map((u) => `Stopped ${u} (it worked in worktree ${a.name}).`), removedText(r!.removed)],
  }),
};
