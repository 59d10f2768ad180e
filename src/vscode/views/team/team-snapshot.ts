// What the Team view draws from, read once per change of the team's files: the roster (members,
// the lead's usage), the plan and the pending requests, the task board, whether there is a team,
// each teammate's merge-queue entry, and which shut-down teammates' worktrees may be removed —
// and, through ActivitySource, what only this window knows (activity, jobs, MCP servers, the
// sandbox, hooks, containers). The rows (views/team/*-row.ts) draw from both.
import {
  type Activity, type ContainerState, type HookSpec, type JobInfo, leadUsage, type McpServerInfo, positions, type SandboxReport, shownEntries,
} from '../../../core/session';
import type { Member, RequestRecord, Task, Usage } from '../../../shared/schemas';
import type { TeamHost } from '../../host/team-host';
import type { MergeEntryNode } from '../nodes';

export interface Snapshot {
  members: Member[];
  leadUsage: Usage | undefined;
  pending: RequestRecord[];
  /** Every plan request: whether plan mode still holds a teammate (docs/file-formats.md, "Plan mode"). */
  plans: RequestRecord[];
  tasks: Map<number, Task>;
  hasTeam: boolean;
  /** Each teammate's entry in the merge queue (its open one, else its latest). */
  merges: Map<string, MergeEntryNode>;
  /** Shut-down teammates whose worktree may be removed without losing anything. */
  removable: Set<string>;
}

export interface ActivitySource {
  activity(agent: string): Activity | undefined;
  /** The model agents use unless spawned with their own (for cost estimates). */
  defaultModel(): string;
  /** This window's MCP servers (none before the team runs). */
  mcpServers?(): McpServerInfo[];
  /** The agent's background jobs this host runs. */
  jobs?(agent: string): JobInfo[];
  /** Worktrees whose removal is offered (merged, clean, teammate shut down: core/worktree/in-use.ts). */
  removableWorktrees?(): Promise<string[]>;
  /** Where commands run (docs/security.md); undefined until read. */
  sandbox?(): SandboxReport | undefined;
  /** The hooks this window's agents run (docs/hooks.md; none before the team runs). */
  hooks?(): readonly HookSpec[];
  /** Where a container teammate's container stands here (docs/containers.md). */
  container?(agent: string): ContainerState | undefined;
}

/** How long the removable worktrees (a few git calls each) are reused while the shut-down teammates stay the same. */
const REMOVABLE_TTL_MS = 10_000;

/** One read of the files shared by every row until `forget`; a read superseded by a newer one is stale. */
export class SnapshotReader {
  private current: Promise<Snapshot> | undefined;
  private removableCache: { key: string; at: number; names: Promise<Set<string>> } | undefined;

  constructor(private readonly host: Pick<TeamHost, 'view' | 'hasTeam'>, private readonly agents: Pick<ActivitySource, 'removableWorktrees'>) {}

  read(): Promise<Snapshot> {
    const team = this.host.view;
    this.current ??= Promise.all([
      team.roster().catch(() => undefined),
      team.requests({ kind: 'plan' }).catch(() => []),
      team.requests({ status: 'pending' }).catch(() => []),
      team.tasks().catch(() => []),
      this.host.hasTeam(),
      team.queue().catch(() => []),
    ]).then(async ([config, plans, pending, tasks, hasTeam, queue]) => ({
      members: config?.members ?? [], leadUsage: leadUsage(config), pending, plans, tasks: new Map(tasks.map((t) => [t.id, t])), hasTeam,
      merges: mergeNodes(queue),
      removable: await this.removableOf(config?.members ?? []),
    }));
    return this.current;
  }

  /** Whether `read` is still the newest read. */
  isLatest(read: Promise<Snapshot>): boolean {
    return read === this.current;
  }

  /** The next read re-reads the files; with `removable`, asks again which worktrees are removable. */
  forget(removable = false): void {
    this.current = undefined;
    if (removable) this.removableCache = undefined;
  }

  /** Asked only while a shut-down teammate has a branch; reused for a while (roster heartbeats reload often). */
  private removableOf(members: Member[]): Promise<Set<string>> {
    const gone = members.filter((m) => m.status === 'shutdown' && m.branch).map((m) => m.name).join(',');
    if (!gone || !this.agents.removableWorktrees) return Promise.resolve(new Set());
    const c = this.removableCache;
    if (c && c.key === gone && Date.now() - c.at < REMOVABLE_TTL_MS) return c.names;
    const names = this.agents.removableWorktrees().then((n) => new Set(n), () => new Set<string>());
    this.removableCache = { key: gone, at: Date.now(), names };
    return names;
  }
}

function mergeNodes(entries: Parameters<typeof shownEntries>[0]): Map<string, MergeEntryNode> {
  const pos = positions(entries);
  const out = new Map<string, MergeEntryNode>();
  // Open entries come after the teammate's finished ones: the open one is what its row shows.
  for (const entry of shownEntries(entries)) out.set(entry.teammate, { nodeKind: 'mergeEntry', entry, position: pos.get(entry.id) });
  return out;
}
