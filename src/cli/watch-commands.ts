// `agent-teams log <name>`, `export <name>` and `changes [name]`: an agent's transcript as
// the shared rules show it (src/shared/transcript-rows.ts), as Markdown, and the files agents
// changed. Read-only: they never start a model and never create team files (export writes
// only the file it is asked to).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ChangeLog, type ChangeRecord, type ItemChange, NAME_RE, unifiedDiff } from '../core/session';
import { TRANSCRIPT_MODES, type TranscriptItem, type TranscriptMode } from '../shared/transcript-items';
import { RowList, toRows, type RowChange } from '../shared/transcript-rows';
import { oneOf, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { ReplUsageError, type SlashCommand } from './repl-host';
import { nameArg } from './read-commands';
import { changeLine, resultText, rowMarkdown, rowText } from './watch-format';

const FOLLOW_POLL_MS = 250;


/** Prints what a row change means to someone reading along. */
export function printChange(c: RowChange | null, rows: RowList, print: (s: string) => void): void {
  if (!c) return;
  if (c.op === 'add' && !c.row.streaming) print(rowText(c.row));
  else if (c.op === 'replace') {
    const r = c.row;
    // A tool call's result (or a group growing): say what finished, not the whole row again.
    if (r.kind === 'group') {
      const last = rows.item(r.items[r.items.length - 1]!);
      if (last?.kind === 'tool' && !last.running) print(`    + ${last.tool}${last.isError ? ' (failed)' : ''}`);
    } else if (r.kind === 'tool' || r.kind === 'request' || r.kind === 'mail_out') print(resultText(r));
  }
}

export async function logCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[1])}`, ctx.usage);
  const name = nameArg(ctx.args[0], 'name', ctx.usage);
  const raw = stringOpt(ctx.opts, 'view');
  let mode: TranscriptMode = 'normal';
  try {
    if (raw !== undefined) mode = oneOf(raw, TRANSCRIPT_MODES, '--view');
  } catch (e) {
    throw new UsageError((e as Error).message, ctx.usage);
  }
  const rows = new RowList(mode, name);
  const items = new Map<string, TranscriptItem>();
  // While loading, changes are only collected: the log then prints final rows (a call with
  // its result). Following, each change is printed as it comes.
  let live = false;
  const onChange = (c: ItemChange): void => {
    if (ctx.json) {
      if (c.op === 'remove') items.delete(c.key);
      else if (!(c.item.kind === 'text' && c.item.streaming)) {
        if (live) ctx.out(JSON.stringify(c.item));
        else items.set(c.item.key, c.item);
      }
      return;
    }
    const change = c.op === 'put' ? rows.put(c.item) : rows.remove(c.key);
    if (live) printChange(change, rows, (s) => ctx.out(s));
  };
  const follower = ctx.session.view.transcript(name, onChange);
  const loaded = await follower.load();
  if (loaded.skippedBytes > 0 && !ctx.json) {
    ctx.io.stderr.write(`(the first ${(loaded.skippedBytes / 1048576).toFixed(1)} MB of ${name}'s transcript are not shown; agent-teams export ${name} has all of it)\n`);
  }
  if (!loaded.next && !ctx.opts.follow) {
    ctx.io.stderr.write(`agent-teams: ${name} has no transcript in ${ctx.root}\n`);
    return 1;
  }
  if (ctx.json) for (const i of items.values()) ctx.out(JSON.stringify(i));
  else for (const r of rows.rows) ctx.out(rowText(r));
  live = true;
  if (!ctx.opts.follow) return 0;
  // Follows until interrupted (Ctrl-C) or the reader goes away (a closed pipe).
  await new Promise<void>((resolve) => {
    const unfollow = follower.follow({ pollMs: FOLLOW_POLL_MS, onError: (e) => ctx.io.stderr.write(`agent-teams: ${e.message}\n`) });
    let off = (): void => undefined;
    const stop = (): void => {
      unfollow();
      off();
      resolve();
    };
    off = ctx.io.onSigint(stop);
    ctx.io.stdout.once('error', stop);
  });
  return 0;
}

export async function exportCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[1])}`, ctx.usage);
  const name = nameArg(ctx.args[0], 'name', ctx.usage);
  const items = await ctx.session.view.transcriptItems(name);
  if (!items.length) {
    ctx.io.stderr.write(`agent-teams: ${name} has no transcript in ${ctx.root}\n`);
    return 1;
  }
  const md = [`# Transcript of ${name}`, '', ...toRows(items, 'verbose', name).map((r) => rowMarkdown(r) + '\n')].join('\n');
  const out = stringOpt(ctx.opts, 'out');
  if (out) {
    await writeFile(path.resolve(ctx.io.cwd, out), md);
    ctx.io.stderr.write(`wrote ${out}\n`);
  } else ctx.io.stdout.write(md);
  return 0;
}

/** A change as a unified diff, or a line saying why there is none. */
export async function changeDiff(log: ChangeLog, c: ChangeRecord): Promise<string> {
  const where = c.root ? `${c.root}/${c.path}` : c.path;
  const [before, after] = await Promise.all([log.content(c.before), log.content(c.after)]);
  if ((c.before && !before) || (c.after && !after)) return `    (no diff: content ${c.before && !before ? 'before' : 'after'} was not recorded)`;
  return unifiedDiff(before?.toString('utf8') ?? '', after?.toString('utf8') ?? '', c.before ? `a/${where}` : '/dev/null', c.after ? `b/${where}` : '/dev/null');
}

export async function changesCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[1])}`, ctx.usage);
  const name = ctx.args[0] === undefined ? undefined : nameArg(ctx.args[0], 'name', ctx.usage);
  const log = ctx.session.view.changeLog();
  const { changes, damaged } = await log.list(name);
  if (damaged) ctx.io.stderr.write(`agent-teams: ${damaged} damaged change record${damaged === 1 ? '' : 's'} skipped\n`);
  if (ctx.json) {
    ctx.outJson(changes);
    return 0;
  }
  if (!changes.length) {
    ctx.out(name ? `No changes by ${name}.` : 'No changes recorded.');
    return 0;
  }
  for (const c of changes) {
    ctx.out(changeLine(c));
    if (ctx.opts.diff) ctx.out(await changeDiff(log, c));
  }
  return 0;
}

/** How many rows `/log` shows: the end of the transcript, like `tail`. */
const SLASH_LOG_ROWS = 40;

/** `/log <name> [summary|normal|verbose]` and `/changes [name]` in a session. */
export const WATCH_SLASH_COMMANDS: Record<string, SlashCommand> = {
  log: {
    usage: '/log <name> [summary|normal|verbose]', summary: "the end of an agent's transcript (agent-teams log <name> --follow for all of it, live)",
    async run(args, { rt, print }) {
      const [name, view] = args;
      if (!name || args.length > 2 || (view !== undefined && !(TRANSCRIPT_MODES as readonly string[]).includes(view)) || !NAME_RE.test(name)) {
        throw new ReplUsageError(`usage: ${WATCH_SLASH_COMMANDS.log!.usage}`);
      }
      const rows = new RowList((view as TranscriptMode | undefined) ?? 'normal', name);
      const f = rt.view.transcript(name, (c) => (c.op === 'put' ? rows.put(c.item) : rows.remove(c.key)));
      const loaded = await f.load(1024 * 1024);
      if (!loaded.next) throw new ReplUsageError(`${name} has no transcript yet.`);
      const shown = rows.rows.slice(-SLASH_LOG_ROWS);
      const more = rows.rows.length - shown.length;
      print([...(more || loaded.skippedBytes ? [`(${more ? `${more} earlier rows` : 'earlier part'} not shown)`] : []), ...shown.map(rowText)].join('\n'));
    },
  },
  changes: {
    usage: '/changes [name]', summary: 'files agents wrote or edited (agent-teams changes --diff for the diffs)',
    async run(args, { rt, print }) {
      if (args.length > 1 || (args[0] !== undefined && !NAME_RE.test(args[0]))) throw new ReplUsageError(`usage: ${WATCH_SLASH_COMMANDS.changes!.usage}`);
      const { changes } = await rt.view.changeLog().list(args[0]);
      print(changes.length ? changes.map(changeLine).join('\n') : args[0] ? `No changes by ${args[0]}.` : 'No changes recorded.');
    },
  },
};
