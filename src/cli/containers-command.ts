// `agent-teams containers [--json]` and `agent-teams containers prune` (docs/containers.md): the
// team's teammate containers on every engine it uses, and removing those of teammates that are
// gone from the roster or shut down. The engines come from `.team/settings.json` `"container"` or
// `--container-host`, else DOCKER_HOST or the local Docker / Podman socket.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ContainerBackend, containerFileSchema, openContainers, resolveContainerSettings, type ContainerFile, type ContainerListing } from '../core/session/containers';
import { stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { table } from './format';
import { writeLine } from './io';

async function fileSettings(root: string): Promise<ContainerFile> {
  const file = join(root, '.team', 'settings.json');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  let raw: unknown;
  try {
    raw = (JSON.parse(text) as { container?: unknown } | null)?.container;
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === undefined) return {};
  const r = containerFileSchema.safeParse(raw);
  if (!r.success) throw new UsageError(`${file}: "container": ${r.error.issues.map((i) => `${i.path.join('.') || '(object)'}: ${i.message}`).join('; ')}`);
  return r.data;
}

async function backend(ctx: CommandContext): Promise<ContainerBackend> {
  const file = await fileSettings(ctx.root);
  const host = stringOpt(ctx.opts, 'container-host');
  const settings = resolveContainerSettings(host ? { ...file, host, hosts: [] } : file);
  const teamName = (await (await ctx.view()).roster()).team_name;
  return openContainers({ root: ctx.root, teamName, settings: () => settings });
}

function rows(list: readonly ContainerListing[], empty: string): string {
  if (!list.length) return empty;
  return table([['AGENT', 'STATE', 'STATUS', 'HOST', 'IMAGE', 'ID'], ...list.map((c) => [c.agent, c.state, c.status, c.host, c.image, c.id.slice(0, 12)])]);
}

export async function containersCommand(ctx: CommandContext): Promise<number> {
  const prune = ctx.args[0] === 'prune';
  if (ctx.args.length > (prune ? 1 : 0)) throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[prune ? 1 : 0])}`, ctx.usage);
  const b = await backend(ctx);
  try {
    const { containers, unreachable } = await b.list();
    for (const u of unreachable) writeLine(ctx.io.stderr, `agent-teams: the container engine at ${u.host} did not answer: ${u.error}`);
    if (!prune) {
      const hosts = await b.hosts();
      const none = unreachable.length === hosts.length ? 'No container engine answered.' : 'No teammate containers.';
      ctx.emit({ team: b.team, hosts, containers, unreachable }, () => rows(containers, none));
      return unreachable.length ? 1 : 0;
    }
    // Teammates gone from the roster or shut down: their work is on team/<name> (brought back when they stopped).
    const members = new Set((await (await ctx.view()).roster()).members.filter((m) => m.status !== 'shutdown').map((m) => m.name));
    const removed = await b.prune((agent) => members.has(agent));
    ctx.emit({ team: b.team, removed, unreachable }, () => rows(removed, 'Nothing to prune: every container belongs to a teammate on the roster.').replace(/^AGENT/, 'REMOVED'));
    return unreachable.length ? 1 : 0;
  } finally {
    await b.dispose();
  }
}
