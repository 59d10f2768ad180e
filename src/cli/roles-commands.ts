// `agent-teams agents`: the agent definitions a spawn can use (.team/agents, .claude/agents),
// and every file that cannot be used, with its path and why (docs/file-formats.md,
// "Agent definitions"). Reads only; no model, no key.
import { DEFAULT_SETTINGS, loadTeamDefinitions } from '../core/session';
import { terminalSafe, writeLine } from './io';
import type { CommandContext } from './context';
import { UsageError } from './args';
import { table } from './format';

export async function agentsCommand(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[0])}`, ctx.usage);
  const model = typeof ctx.opts.model === 'string' ? ctx.opts.model : DEFAULT_SETTINGS.model;
  const { definitions, problems } = await loadTeamDefinitions(ctx.root, model);
  ctx.emit({ definitions: definitions.map(({ body, ...d }) => ({ ...d, body_chars: body.length })), problems }, () => {
    if (!definitions.length) return 'No agent definitions (add .team/agents/<name>.md or .claude/agents/<name>.md).';
    return table([
      ['name', 'model', 'tools', 'description', 'file'],
      ...definitions.map((d) => [d.name, d.model ?? '(team model)', d.tools ? d.tools.join(',') : 'all', d.description.slice(0, 60), d.path]),
    ]);
  });
  // On stderr, so --json stays one document; the command still succeeds (the others are usable).
  for (const p of problems) writeLine(ctx.io.stderr, terminalSafe(`skipped ${p.path}: ${p.message}`));
  return 0;
}
