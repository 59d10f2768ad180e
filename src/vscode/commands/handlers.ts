// The handler of every command of command-table.ts. A command takes an optional argument object
// (or a tree element from a menu); missing fields are asked for in field order; the object
// is validated with the spec's schema; failures are shown as an error notification naming
// the command and returned to programmatic callers as undefined.
import * as vscode from 'vscode';
import type { z } from 'zod';
import type { CommandContext } from './command-context';
import type { CommandSpec } from './command-spec';
import type { CommandHandler } from '../activation/engine-api';
import { COMMANDS, openWalkthrough, showRestricted } from './command-table';
import { errorText } from '../host/log';
import { walkthroughEvent } from '../host/walkthrough';
import { isTreeNode } from '../views/nodes';
import { planRequestOf } from '../approvals/plan-review';
import { CANCEL } from './questions';
import { isDocName, openDoc, pickDoc } from './open-doc';

/** The complete, validated argument object, or undefined when the user cancelled. */
export async function collectArgs(spec: CommandSpec, ctx: CommandContext, given: unknown): Promise<Record<string, unknown> | undefined> {
  let args: Record<string, unknown>;
  if (given === undefined || given === null) args = {};
  else if (isTreeNode(given)) args = spec.fromNode?.(given) ?? {};
  // A plan document's title-bar buttons (Approve Plan, Reject Plan) pass its uri.
  else if (planRequestOf(given)) args = { requestId: planRequestOf(given) };
  else if (typeof given === 'object' && !Array.isArray(given)) args = { ...(given as Record<string, unknown>) };
  else throw new Error('expects an argument object');
  const interactive = given === undefined || given === null;
  for (const field of spec.fields) {
    if (args[field.key] !== undefined && args[field.key] !== null) continue;
    if (field.optional && !interactive) continue;
    const value = await field.ask(ctx, args);
    if (value === CANCEL) return undefined;
    if (!(field.optional && (value === '' || (Array.isArray(value) && value.length === 0)))) args[field.key] = value;
  }
  const parsed = spec.schema.safeParse(args);
  if (!parsed.success) throw new Error(formatIssues(parsed.error));
  return parsed.data;
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')} ${i.message}` : i.message)).join('; ');
}

/** A handler per command; the first bundle registered them all (extension.ts). */
export function commandHandlers(ctx: CommandContext): [string, CommandHandler][] {
  return COMMANDS.map((spec) => [spec.id, async (given?: unknown) => {
    if (spec.runsAgents && !vscode.workspace.isTrusted) {
      showRestricted();
      return undefined;
    }
    try {
      const args = await collectArgs(spec, ctx, given);
      if (!args) return undefined;
      const result = await (spec.run as (a: Record<string, unknown>, c: CommandContext) => Promise<unknown>)(args, ctx);
      walkthroughEvent(`onCommand:${spec.id}`);
      return result;
    } catch (err) {
      ctx.log.error(`${spec.title}: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`Agent Teams: ${spec.title} failed: ${errorText(err)}`, 'Show Log')
        .then((b) => b && ctx.log.show(true));
      return undefined;
    }
  }]);
}

/** Without a folder every command but Show Log explains that one is needed. */
export function withoutFolderHandlers(log: vscode.LogOutputChannel): [string, CommandHandler][] {
  return COMMANDS.map((spec) => [spec.id, (given?: unknown) => {
    if (spec.id === 'agentTeams.showLog') return log.show(true);
    if (spec.id === 'agentTeams.gettingStarted') return openWalkthrough();
    // Settings' and the walkthrough's links work before a folder is open too.
    if (spec.id === 'agentTeams.openDoc') return openDocFrom(given, log);
    void vscode.window.showWarningMessage(`Agent Teams: ${spec.title} needs an open folder: the team lives in the workspace.`);
    return undefined;
  }]);
}

async function openDocFrom(given: unknown, log: vscode.LogOutputChannel): Promise<void> {
  const doc = given && typeof given === 'object' ? (given as { doc?: unknown }).doc : await pickDoc();
  if (!isDocName(doc)) return;
  await openDoc(doc).catch((e: unknown) => {
    log.error(`Open Documentation: ${errorText(e)}`);
    void vscode.window.showErrorMessage(`Agent Teams: Open Documentation failed: ${errorText(e)}`);
  });
}
