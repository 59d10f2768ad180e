// The subcommand table: words, options, usage line and handler of each scriptable command,
// and the global help text built from it. Interactive options live here too so `--help`
// documents everything in one place.
import type { OptionSpec } from './args';
import type { Command } from './command';
export type { Command } from './command';
import { agentsCommand } from './roles-commands';
import { hooksCommand } from './hooks-commands';
import { inboxCommand, requestsCommand, tasksCommand, teamCommand } from './read-commands';
import { approve, broadcast, reject, send, shutdown, taskAdd, taskDone, taskUnblock } from './write-commands';
import { mcpCommand } from './mcp-commands';
import { queueAddCommand, queueApproveCommand, queueCancelCommand, queueCommand } from './queue-commands';
import { sandboxCommand } from './sandbox-command';
import { RUN_DETAILS } from './run-help';
import { changesCommand, exportCommand, logCommand } from './watch-commands';
import { worktreeDiff, worktreeKeep, worktreeMerge, worktreeRemove, worktrees } from './worktree-commands';

const json: OptionSpec = { json: { type: 'boolean' } };

export const COMMANDS: Command[] = [
  { words: ['team'], synopsis: '[--json]', summary: 'roster: status, role, current task, tokens, pending requests', options: json, run: teamCommand },
  { words: ['tasks'], synopsis: '[--json]', summary: 'the task board: [ ] pending, [>] in progress, [x] completed', options: json, run: tasksCommand, incompleteFails: true },
  taskAdd,
  taskDone,
  taskUnblock,
  send,
  broadcast,
  { words: ['inbox'], synopsis: '[name] [--json]', summary: "everything sent to name (default: user); reading never consumes", options: json, run: inboxCommand, incompleteFails: true },
  { words: ['requests'], synopsis: '[--all] [--json]', summary: 'pending protocol requests (plans, shutdowns)', options: { ...json, all: { type: 'boolean' } }, run: requestsCommand },
  approve,
  reject,
  shutdown,
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
    words: ['mcp'], synopsis: '[--tools [--trust[=remember]]] [--json]',
    summary: 'MCP servers in .mcp.json: name, command line, problems (--tools: start each, list its tools, stop it)',
    options: { ...json, tools: { type: 'boolean' }, trust: { type: 'boolean' } }, run: mcpCommand,
  },
  {
    words: ['sandbox'], synopsis: '[--sandbox auto|required|off] [--allow-domain <host>]... [--json]',
    summary: 'where commands run: mode, engine, what is missing, what they may read, write and reach here',
    options: { ...json, sandbox: { type: 'string' }, 'allow-domain': { type: 'string', multiple: true } }, run: sandboxCommand,
  },
  {
    words: ['agents'], synopsis: '[--model <id>] [--json]', summary: 'agent definitions (.team/agents, .claude/agents) and the files skipped, with why',
    options: { ...json, model: { type: 'string' } }, run: agentsCommand,
  },
  {
    words: ['hooks'], synopsis: '[--json]', summary: 'hooks from .claude/settings.json, .claude/settings.local.json and .team/settings.json: event, matcher, command, file',
    options: json, run: hooksCommand,
  },
  {
    words: ['run'], synopsis: '<prompt…|-> | -p <prompt> | --prompt-file <file> [--with <name>[:<agent_type>]]... [--container] [--timeout <s>] [--output-format text|json|stream-json] [session options]',
    summary: 'headless: the lead works on the prompt with its team until done, then the team stops (exit 0 ok, 1 error or timeout; asks nothing)',
    details: RUN_DETAILS,
    // Loaded on use, as the interactive session is (main.ts): the other commands never load the SDK.
    options: {}, run: (ctx) => (require('./run') as typeof import('./run')).runCommand(ctx),
  },
  {
    words: ['containers'], synopsis: '[prune] [--container-host <url>] [--json]',
    summary: "teammates' containers on the team's engines (prune: remove those of teammates no longer on the roster or shut down; docs/containers.md)",
    // Loaded on use: only this command brings the engine's client (dockerode).
    options: { ...json, 'container-host': { type: 'string' } }, run: (ctx) => (require('./containers-command') as typeof import('./containers-command')).containersCommand(ctx),
  },
  worktrees,
  worktreeDiff,
  worktreeMerge,
  worktreeKeep,
  worktreeRemove,
  queueCommand,
  queueAddCommand,
  queueCancelCommand,
  queueApproveCommand,
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
  'merge-test': { type: 'string' },
  allow: { type: 'string', multiple: true },
  ask: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  sandbox: { type: 'string' },
  'allow-domain': { type: 'string', multiple: true },
  'container-host': { type: 'string' },
  trust: { type: 'boolean' },
};

/** `run` takes every session option too (docs/headless.md). */
const runCommandSpec = COMMANDS.find((c) => c.words[0] === 'run')!;
Object.assign(runCommandSpec.options, SESSION_OPTIONS, {
  prompt: { type: 'string', short: 'p' }, 'prompt-file': { type: 'string' }, with: { type: 'string', multiple: true }, container: { type: 'boolean' },
  timeout: { type: 'string' }, 'output-format': { type: 'string' },
});

export function usageOf(c: Command): string {
  return `usage: agent-teams ${c.words.join(' ')} ${c.synopsis} [--root <dir>]`;
}

export const SESSION_USAGE = 'usage: agent-teams [--root <dir>] [--model <id>] [--bash ask|allow|deny] [--plan-approval user|lead]\n'
  + '                   [--max-rounds <n>] [--idle-timeout <s>] [--token-budget <n>] [--max-teammates <n>]\n'
  + '                   [--require-plan never|always] [--confirm-team] [--merge-test <command>]\n'
  + '                   [--allow <rule>]... [--ask <rule>]... [--deny <rule>]...   (rules: docs/permissions.md)\n'
  + '                   [--sandbox auto|required|off] [--allow-domain <host>]...   (docs/security.md)\n'
  + '                   [--container-host unix://…|tcp://…|ssh://user@host]   (teammates\' containers: docs/containers.md)\n'
  + '                   [--trust[=remember]]   (use this folder\'s .team/settings.json, .mcp.json and hooks without asking,\n'
  + '                                         this run only unless =remember: docs/security.md)';

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

export function helpText({ version, docs }: { version: string; docs: string | null }): string {
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
    'Exit codes: 0 ok, 1 the operation failed (unknown task, recipient shut down, merge conflict…; tasks and inbox: a file could not be read, the listing is incomplete), 2 usage error.',
    ...(docs ? ['', `The documents named here (docs/<name>.md) are in ${docs}`] : []),
  ].join('\n');
}
