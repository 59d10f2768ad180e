// The elements of the Team and Tasks trees, and the words they are described with (the
// team's own words — activity, tokens, spend — are the core's: core/session/team-words.ts). Tree
// elements are also what menu commands receive, so commands map them to argument objects
// (see commands/handlers.ts `fromNode`).
import type { ContainerState, HookSpec, JobInfo, McpServerInfo, SandboxReport } from '../../core/session';
import type { Member, RequestRecord, Task, TaskStatus } from '../../shared/schemas';
import type { MergeEntry } from '../../shared/schemas/merge-queue';

export type MemberNode = { nodeKind: 'member'; name: string; lead: boolean; member?: Member };
export type RequestNode = { nodeKind: 'request'; record: RequestRecord };
export type JobNode = { nodeKind: 'job'; job: JobInfo };
export type TaskGroupNode = { nodeKind: 'taskGroup'; status: TaskStatus; count: number };
export type TaskNode = { nodeKind: 'task'; task: Task };
export type McpServerNode = { nodeKind: 'mcpServer'; server: McpServerInfo };
/** A teammate's merge-queue entry under its row (`position`: its place in line while open). */
export type MergeEntryNode = { nodeKind: 'mergeEntry'; entry: MergeEntry; position?: number };
/** Where commands run (docs/security.md). */
export type SandboxNode = { nodeKind: 'sandbox'; report: SandboxReport };
/** The folder's hooks as this window's agents run them (docs/hooks.md). */
export type HooksNode = { nodeKind: 'hooks'; hooks: readonly HookSpec[] };
/** A container teammate's container (docs/containers.md); `state` undefined: not started in this window. */
export type ContainerNode = { nodeKind: 'container'; agent: string; state?: ContainerState };
export type TreeNode = MemberNode | RequestNode | JobNode | TaskGroupNode | TaskNode | McpServerNode | SandboxNode | HooksNode | MergeEntryNode | ContainerNode;

export function isTreeNode(value: unknown): value is TreeNode {
  return !!value && typeof value === 'object' && typeof (value as { nodeKind?: unknown }).nodeKind === 'string';
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
