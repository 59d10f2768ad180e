// The table of user actions (ARCHITECTURE.md "The action table"): each defined once in its
// family's file; the VS Code commands, the CLI subcommands and the REPL slash commands are
// derived from these entries.
import { killJob, mcpRestart, revertChangeAction } from './agents';
import { queueAdd, queueApprove, queueCancel, queueList, queueRetry } from './queue';
import { broadcast, send } from './mail';
import { approvePlan, rejectPlan } from './plans';
import { askLead } from './lead';
import { completeTask, createTask, unblockTask, updateTask } from './tasks';
import { requestPlan, shutdown, spawn, stop } from './teammates';
import { worktreeDiff, worktreeKeep, worktreeList, worktreeMerge, worktreeRemove } from './worktrees';

export const ACTIONS = {
  send, broadcast, askLead, spawn, stop, shutdown, requestPlan, approvePlan, rejectPlan,
  createTask, completeTask, updateTask, unblockTask,
  worktreeList, worktreeDiff, worktreeMerge, worktreeKeep, worktreeRemove,
  mcpRestart, killJob, revertChange: revertChangeAction,
  queueList, queueAdd, queueCancel, queueRetry, queueApprove,
} as const;

export type ActionId = keyof typeof ACTIONS;

export {
  ActionError, defineAction, parseArgs, runAction, sessionScope, RequestId, TaskId, Text,
  type Action, type ActionScope, type Question, type ScopeOptions,
} from './action';
export { NOBODY_TO_BROADCAST } from './mail';
export { WorktreeName } from './worktrees';
export { spawnNotes } from './teammates';
