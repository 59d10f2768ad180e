// The `agent-teams` command line: with a command, one scriptable operation on the team's
// files (no model, no key); without one, an interactive lead session in the folder.
// `run()` is the whole program for in-process tests; the entry guard at the bottom is the bin.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { onProblem } from '../core/session';
import { GLOBAL_OPTIONS, parseStrict, scanWords, stringOpt, UsageError, type ParsedArgs } from './args';
import { allOptions, COMMANDS, commandsUsage, findCommand, helpText, SESSION_OPTIONS, SESSION_USAGE, usageOf, type Command } from './commands';
import { CommandContext } from './context';
import { processIo, writeLine, type CliIo } from './io';
import { sessionSettings, withTeamSettings } from './settings';
import { folderTrust, hooksTrusted, splitTrustArg, trustFlag } from './trust';
import { packageInfo, packageVersion } from './version';

function usageFailure(io: CliIo, err: UsageError): number {
  writeLine(io.stderr, `agent-teams: ${err.message}`);
  writeLine(io.stderr, err.usage ?? SESSION_USAGE);
  writeLine(io.stderr, "Run 'agent-teams --help' for all commands.");
  return 2;
}

/** Finds the command and parses strictly against its options. */
function parseCommandLine(argv: string[]): { command: Command | undefined; parsed: ParsedArgs; helpFor?: Command } {
  const words = scanWords(argv, allOptions(GLOBAL_OPTIONS));
  if (words[0] === 'help') {
    const helpFor = findCommand(words.slice(1));
    return { command: undefined, parsed: { words: [], values: { help: true } }, helpFor };
  }
  const command = words.length ? findCommand(words) : undefined;
  if (words.length && !command) {
    const sub = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === words[0]).map((c) => c.words.slice(1).join(' '));
    if (sub.length) {
      const got = words[1] ? ` (not "${words[1]}")` : '';
      throw new UsageError(`"${words[0]}" needs one of: ${sub.join(', ')}${got}`, commandsUsage(words[0]));
    }
    throw new UsageError(`unknown command "${words[0]}"`, `${SESSION_USAGE}\n${commandsUsage().replace(/^usage: /, '       ')}`);
  }
  const options = { ...GLOBAL_OPTIONS, ...(command ? command.options : SESSION_OPTIONS) };
  return { command, parsed: parseStrict(argv, options, command ? usageOf(command) : SESSION_USAGE) };
}

async function workspaceRoot(io: CliIo, raw: string | undefined, usage: string): Promise<string> {
  const root = resolve(io.cwd, raw ?? '.');
  const s = await stat(root).catch(() => null);
  if (!s?.isDirectory()) throw new UsageError(`--root: no such directory: ${root}`, usage);
  return root;
}

export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  let line: ReturnType<typeof parseCommandLine>;
  const trustArg = splitTrustArg(argv);
  try {
    line = parseCommandLine(trustArg.argv);
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(io, err);
    throw err;
  }
  const { command, parsed } = line;
  if (trustArg.remember && parsed.values.trust === true) parsed.values.trust = 'remember';
  const target = command ?? line.helpFor;
  if (parsed.values.version) {
    writeLine(io.stdout, await packageVersion());
    return 0;
  }
  if (parsed.values.help) {
    writeLine(io.stdout, target ? `${usageOf(target)}\n  ${target.summary}${target.details ?? ''}` : helpText(await packageInfo()));
    return 0;
  }
  // Corrupt files are moved aside by the engine; the user must hear about it.
  let reported = 0;
  const problems = onProblem((p) => {
    reported++;
    writeLine(io.stderr, `agent-teams: warning: ${p.path}: ${p.message}`);
  });
  try {
    const root = await workspaceRoot(io, stringOpt(parsed.values, 'root'), command ? usageOf(command) : SESSION_USAGE);
    if (!command) {
      // The folder's own settings and MCP servers count only once the user trusted them (trust.ts).
      const trust = await folderTrust(io, root, { trust: trustFlag(parsed.values) });
      const flags = sessionSettings(parsed.values);
      const settings = trust['.team/settings.json'] ? await withTeamSettings(root, flags, parsed.values) : flags;
      // Loaded only here: the SDK and the runtime are not needed for a subcommand's quick exit.
      // require, not import(): the unbundled CJS test build cannot resolve import('./session').
      const { runSession } = require('./session') as typeof import('./session');
      return await runSession({ io, root, settings, mcpTrusted: trust['.mcp.json'], hooksTrusted: hooksTrusted(trust) });
    }
    const ctx = new CommandContext(io, root, parsed.words.slice(command.words.length), parsed.values, usageOf(command));
    try {
      const code = await command.run(ctx);
      // A script must not take a board or inbox with an unreadable file for a complete one.
      return code === 0 && command.incompleteFails && reported ? 1 : code;
    } finally {
      ctx.dispose();
    }
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(io, err);
    writeLine(io.stderr, `agent-teams: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    problems.dispose();
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // Normally nothing is left and node exits now; if a stray socket or timer lingers, do not hang.
    setTimeout(() => process.exit(code), 2000).unref();
  });
}
