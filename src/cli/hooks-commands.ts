// `agent-teams hooks`: the hooks the folder's settings files define (docs/hooks.md), per
// event, with matcher, command, timeout and the file each comes from; malformed entries on
// stderr with their file and position. Reads only; runs nothing.
import { HOOK_EVENTS, loadHookConfig } from '../core/session';
import { UsageError } from './args';
import type { CommandContext } from './context';
import { table } from './format';
import { terminalSafe, writeLine } from './io';

export async function hooksCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const { hooks, problems } = await loadHookConfig(ctx.root);
  const ordered = [...hooks].sort((a, b) => HOOK_EVENTS.indexOf(a.event) - HOOK_EVENTS.indexOf(b.event));
  ctx.emit({ hooks: ordered.map((h) => ({ event: h.event, matcher: h.matcher, command: h.command, timeout: h.timeoutSec, source: h.source, at: h.at })), problems }, () => {
    if (!ordered.length) return 'No hooks (add them to .claude/settings.json, .claude/settings.local.json or .team/settings.json; see docs/hooks.md).';
    return table([
      ['event', 'matcher', 'command', 'timeout', 'file'],
      ...ordered.map((h) => [h.event, h.matcher || '*', h.command.length > 60 ? `${h.command.slice(0, 59)}…` : h.command, `${h.timeoutSec} s`, h.source]),
    ]);
  });
  // On stderr, so --json stays one document; the other hooks are still listed (and would run).
  for (const p of problems) writeLine(ctx.io.stderr, terminalSafe(`${p.path}: ${p.message}`));
  return 0;
}
