// The elements of the Team and Tasks trees, and the words they are described with. Tree
// elements are also what menu commands receive, so commands map them to argument objects
// (see commands.ts `fromNode`).
import type { McpServerInfo } from '../core/mcp/manager';
import { estimateCost, formatCost } from '../core/runtime/pricing';
import type { JobInfo } from '../core/exec/jobs';
import type { Activity } from '../core/runtime/types';
import { Usage, type Member, type RequestRecord, type Task, type TaskStatus, type TeamConfig } from '../shared/team-schemas';

export type MemberNode = { nodeKind: 'member'; name: string; lead: boolean; member?: Member };
export type RequestNode = { nodeKind: 'request'; record: RequestRecord };
export type JobNode = { nodeKind: 'job'; job: JobInfo };
export type TaskGroupNode = { nodeKind: 'taskGroup'; status: TaskStatus; count: number };
export type TaskNode = { nodeKind: 'task'; task: Task };
export type McpServerNode = { nodeKind: 'mcpServer'; server: McpServerInfo };
export type TreeNode = MemberNode | RequestNode | JobNode | TaskGroupNode | TaskNode | McpServerNode;

export function isTreeNode(value: unknown): value is TreeNode {
  return !!value && typeof value === 'object' && typeof (value as { nodeKind?: unknown }).nodeKind === 'string';
}

export function totalTokens(u: Usage | undefined): number {
  return u ? (u.input ?? 0) + (u.output ?? 0) + (u.cache_read ?? 0) + (u.cache_write ?? 0) : 0;
}

/** The lead's usage, kept by the runtime in the roster's top-level `lead` field. */
export function leadUsage(config: TeamConfig | undefined): Usage | undefined {
  const parsed = Usage.safeParse((config as { lead?: { usage?: unknown } } | undefined)?.lead?.usage);
  return parsed.success ? parsed.data : undefined;
}

/** "16k tokens · $0.05", or undefined before any token was spent. */
export function spendWords(u: Usage | undefined, model: string): string | undefined {
  const tokens = totalTokens(u);
  return tokens ? `${formatTokens(tokens)} · ${formatCost(estimateCost(model, u))}` : undefined;
}

export function formatTokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k tokens`;
  return `${(n / 1_000_000).toFixed(1)}M tokens`;
}

/** Fine-grained activity in words, when it says more than the roster status. */
export function activityWords(a: Activity | undefined): string | undefined {
  switch (a?.kind) {
    case 'requesting': return 'thinking';
    case 'streaming': return 'writing';
    case 'retrying': return `retrying in ${Math.ceil(a.inMs / 1000)} s (${a.reason})`;
    case 'tool': return `running ${a.tool}`;
    case 'waiting-approval': return `waiting for approval: ${a.what}`;
    case 'paused': return `paused: ${a.reason}`;
    case 'error': return `error: ${a.message}`;
    case 'remote': return `running in another window (${a.host})`;
    default: return undefined;
  }
}

export const TASK_STATUS_WORDS: Record<TaskStatus, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
};

export function requestLabel(r: RequestRecord): string {
  return r.kind === 'plan' ? `Plan from ${r.from} awaiting approval` : `Shutdown requested by ${r.from}`;
}

/** Seconds since `t` (float seconds) as "3 min ago". */
export function ago(t: number, now = Date.now() / 1000): string {
  const s = Math.max(0, Math.round(now - t));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}
