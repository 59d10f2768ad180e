// `agent-teams sandbox`: the mode, the engine, what is missing, and what a command in the folder
// may read, write and reach (docs/security.md). The same flags as a session (--sandbox,
// --allow-domain) and `.team/settings.json` decide it.
import { describeSandbox, gitExposureWarning, sandboxReportText, trackedHidden } from '../core/session';
import { DEFAULT_SETTINGS } from '../core/session';
import { UsageError } from './args';
import type { CommandContext } from './context';
import { sandboxFromFlags } from './sandbox-settings';
import { withTeamSettings } from './settings';

export async function sandboxCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const s = await withTeamSettings(ctx.root, { ...DEFAULT_SETTINGS, sandbox: sandboxFromFlags(ctx.opts) }, ctx.opts);
  const report = await describeSandbox(ctx.root, ctx.root, s.sandbox, s.permissions, ctx.io.env.PATH ?? '');
  // Read deny rules cannot hide what git tracks from the object store: said here, where the rules show.
  const readableThroughGit = await trackedHidden(ctx.root, report.hidden);
  const warning = readableThroughGit.length ? `\nwarning: ${gitExposureWarning(ctx.root, readableThroughGit)}` : '';
  ctx.emit({ ...report, readableThroughGit }, () => `${sandboxReportText(report)}${warning}`);
  return 0;
}
