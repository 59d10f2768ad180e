// The subcommand table: words, options, usage line and handler of each scriptable command,
// and the global help text built from it. Interactive options live here too so `--help`
// documents everything in one place.
import type { OptionSpec } from './args';
import type { CommandContext } from './context';
import { agentsCommand } from './roles-commands';
import { inboxCommand, requestsCommand, tasksCommand, teamCommand } from './read-commands';
import {
  approveCommand, broadcastCommand, rejectCommand, sendCommand, shutdownCommand, taskAddCommand, taskDoneCommand, taskUnblockCommand,
} from './write-commands';
import { mcpCommand } from './mcp-commands';
import { changesCommand, exportCommand, logCommand } from './watch-commands';
import {
  worktreeDiffCommand, worktreeKeepCommand, worktreeMergeCommand, worktreeRemoveCommand, worktreesCommand,
} from './worktree-commands';

export interface Command {
  words: string[];
  /** Arguments and options after the words, for the usage line. */
  synopsis: string;
  summary: string;
  options: OptionSpec;
  run(ctx: CommandContext): Promise<number>;
}

const json: OptionSpec = { json: { type: 'boolean' } };

export const COMMANDS: Command[] = [
  { words: ['team'], synopsis: '[--json]', summary: 'roster: status, role, current task, tokens, pending requests', options: json, run: teamCommand },
  { words: ['tasks'], synopsis: '[--json]', summary: 'the task board: [ ] pending, [>] in progress, [x] completed', options: json, run: tasksCommand },
  {
    words: ['task', 'add'], synopsis: '<subject> [--description <text>] [--blocked-by <id,id…>] [--json]',
    summary: 'create a task', options: { ...json, description: { type: 'string' }, 'blocked-by': { type: 'string' } }, run: taskAddCommand,
  },
  { words: ['task', 'done'], synopsis: '<id> [--json]', summary: 'complete a task (unblocks the tasks waiting for it)', options: json, run: taskDoneCommand },
  {
    words: ['task', 'unblock'], synopsis: '<id> [--from <id,id…>] [--json]',
    summary: 'drop blockers from a task (all, or those named)', options: { ...json, from: { type: 'string' } }, run: taskUnblockCommand,
  },
  { words: ['send'], synopsis: '<to> <text…|-> [--json]', summary: 'send a message as user (- reads the text from stdin)', options: json, run: sendCommand },
  { words: ['broadcast'], synopsis: '<text…|-> [--json]', summary: 'message every running teammate as user', options: json, run: broadcastCommand },
  { words: ['inbox'], synopsis: '[name] [--json]', summary: "everything sent to name (default: user); reading never consumes", options: json, run: inboxCommand },
  { words: ['requests'], synopsis: '[--all] [--json]', summary: 'pending protocol requests (plans, shutdowns)', options: { ...json, all: { type: 'boolean' } }, run: requestsCommand },
  { words: ['approve'], synopsis: '<request_id> [--feedback <text>] [--json]', summary: "approve a teammate's plan", options: { ...json, feedback: { type: 'string' } }, run: approveCommand },
  { words: ['reject'], synopsis: '<request_id> <feedback…> [--json]', summary: "reject a teammate's plan, saying what to change", options: json, run: rejectCommand },
  { words: ['shutdown'], synopsis: '<name> [--json]', summary: 'ask a teammate to shut down (it answers by message)', options: json, run: shutdownCommand },
  {
    words: ['log'], synopsis: '<name> [--follow] [--view summary|normal|verbose] [--json]',
    summary: "an agent's transcript: its words, tool calls and results, mail, errors, tokens per round (--follow: as it works)",
    options: { ...json, follow: { type: 'boolean', short: 'f' }, view: { type: 'string' } }, run: logCommand,
  },
  { words: ['export'], synopsis: '<name> [--out <file.md>]', summary: "an agent's whole transcript as Markdown", options: { out: { type: 'string', short: 'o' } }, run: exportCommand },
  {
    words: ['changes'], synopsis: '[name] [--diff] [--json]', summary: 'files agents wrote or edited: who, when, which task (--diff: with diffs)',
    options: { ...json, diff: { type: 'boolean' } }, run: changesCommand,
  },
  {
    words: ['mcp'], synopsis: '[--tools] [--json]',
    summary: 'MCP servers in .mcp.json: name, command line, problems (--tools: start each, list its tools, stop it)',
    options: { ...json, tools: { type: 'boolean' } }, run: mcpCommand,
  },
  {
    words: ['agents'], synopsis: '[--model <id>] [--json]', summary: 'agent definitions (.team/agents, .claude/agents) and the files skipped, with why',
    options: { ...json, model: { type: 'string' } }, run: agentsCommand,
  },
  { words: ['worktrees'], synopsis: '[--json]', summary: "teammates' git worktrees: name, branch, base, status, path", options: json, run: worktreesCommand },
  {
    words: ['worktree', 'diff'], synopsis: '<name> [--stat] [--json]', summary: "a worktree's changes since its base, uncommitted ones included",
    options: { ...json, stat: { type: 'boolean' } }, run: worktreeDiffCommand,
  },
  {
    words: ['worktree', 'merge'], synopsis: '<name> [--message <text>] [--json]',
    summary: 'merge wt/<name> into the current branch; a conflict is aborted, its files listed, exit 1',
    options: { ...json, message: { type: 'string', short: 'm' } }, run: worktreeMergeCommand,
  },
  {
    words: ['worktree', 'keep'], synopsis: '<name> [--message <text>] [--force] [--json]',
    summary: 'remove the checkout, keep branch wt/<name>; refuses if it would delete git-ignored files unless --force',
    options: { ...json, message: { type: 'string', short: 'm' }, force: { type: 'boolean' } }, run: worktreeKeepCommand,
  },
  {
    words: ['worktree', 'remove'], synopsis: '<name> [--force] [--json]',
    summary: 'remove checkout and branch; refuses uncommitted or unmerged work, or git-ignored files, unless --force',
    options: { ...json, force: { type: 'boolean' } }, run: worktreeRemoveCommand,
  },
];

/** Options of the interactive session (no command). */
export const SESSION_OPTIONS: OptionSpec = {
  model: { type: 'string' },
  bash: { type: 'string' },
  'plan-approval': { type: 'string' },
  'max-rounds': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'token-budget': { type: 'string' },
  'max-teammates': { type: 'string' },
  'require-plan': { type: 'string' },
  'confirm-team': { type: 'boolean' },
  allow: { type: 'string', multiple: true },
  ask: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
};

export function usageOf(c: Command): string {
  return `usage: agent-teams ${c.words.join(' ')} ${c.synopsis} [--root <dir>]`;
}

export const SESSION_USAGE = 'usage: agent-teams [--root <dir>] [--model <id>] [--bash ask|allow|deny] [--plan-approval user|lead]\n'
  + '                   [--max-rounds <n>] [--idle-timeout <s>] [--token-budget <n>] [--max-teammates <n>]\n'
  + '                   [--require-plan never|always] [--confirm-team]\n'
  + '                   [--allow <rule>]... [--ask <rule>]... [--deny <rule>]...   (rules: docs/permissions.md)';

/** The usage lines of the commands starting with `first` (all commands without it). */
export function commandsUsage(first?: string): string {
  const list = COMMANDS.filter((c) => !first || c.words[0] === first);
  return list.map((c, i) => `${i ? '       ' : 'usage: '}agent-teams ${c.words.join(' ')} ${c.synopsis}`).join('\n');
}

/** Every option any command knows, for the lenient scan that finds the command words. */
export function allOptions(global: OptionSpec): OptionSpec {
  return Object.assign({}, global, SESSION_OPTIONS, ...COMMANDS.map((c) => c.options));
}

/** The longest command whose words start `words`. */
export function findCommand(words: string[]): Command | undefined {
  let best: Command | undefined;
  for (const c of COMMANDS) {
    if (c.words.every((w, i) => words[i] === w) && (!best || c.words.length > best.words.length)) best = c;
  }
  return best;
}

export function helpText(version: string): string {
  return [
    `agent-teams ${version}: a lead agent and named teammates working in a folder, from the terminal.`,
    '',
    'Interactive session (needs ANTHROPIC_API_KEY, or OPENAI_API_KEY with --model openai:<id>; ANTHROPIC_BASE_URL / OPENAI_BASE_URL optional):',
    `  ${SESSION_USAGE.replace(/\n/g, '\n  ')}`,
    '  Type to talk to the lead. /help in the session lists its commands; Ctrl-C cancels',
    "  the lead's turn, twice at an empty prompt quits.",
    '',
    'Scriptable commands (no model, no key; work beside a running VS Code window or session):',
    ...COMMANDS.flatMap((c) => [`  agent-teams ${c.words.join(' ')} ${c.synopsis}`, `      ${c.summary}`]),
    '',
    'Options:',
    '  --root <dir>   the workspace folder (default: the current directory)',
    '  --json         machine-readable output where listed',
    '  -h, --help     this help (or: agent-teams <command> --help)',
    '  -V, --version  print the version',
    "  -m, --message  worktree merge/keep: commit the worktree's uncommitted changes with this text first",
    '',
    'Exit codes: 0 ok, 1 the operation failed (unknown task, recipient shut down, merge conflict…), 2 usage error.',
  ].join('\n');
}
