// Runs inside code-server's extension host (see test/e2e/vscode-ext-host.test.ts) with the real
// vscode API: commands with argument objects write the right files, and the tree providers
// show what the team files say. The workspace was seeded by seedTeam() before start.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Team } from '../../../src/core/team/team';
import type { ExtensionApi } from '../../../src/vscode/activation/extension';
import { approverCases } from './approver-cases';
import { taskTreeRedrawCases, treeCases } from './tree-cases';
import { watchCases } from './watch-cases';
import { commandCases } from './command-cases';
import { worktreeCases } from './worktree-cases';
import { settingsCases } from './settings-cases';

export interface Env {
  root: string;
  team: Team;
  api: ExtensionApi;
}

export type Case = [name: string, fn: (env: Env) => Promise<void>];

export async function readLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

export function inboxPath(root: string, name: string): string {
  return join(root, '.team', 'inbox', `${name}.jsonl`);
}

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<ExtensionApi>('agent-teams.agent-teams');
  assert.ok(ext, 'extension agent-teams.agent-teams is installed');
  const api = await ext.activate();
  // The views' providers and the command handlers live in the engine, loaded after activation.
  await api.ready;
  const contributed = (ext.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
  assert.deepEqual([...(api.commandIds ?? [])].sort(), [...contributed].sort(), 'every contributed command has a handler in the engine, and no other');
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root && api.root === root, 'the team lives in the first workspace folder');
  const team = await new Team(root).init();
  const env: Env = { root, team, api };
  await runCases(env, [...treeCases, ...commandCases, ...worktreeCases, ...approverCases, ...watchCases, ...taskTreeRedrawCases, ...settingsCases]);
}

/** Runs every case (a failure does not stop the rest), then throws if any failed. */
export async function runCases(env: Env, cases: Case[]): Promise<void> {
  const failures: string[] = [];
  for (const [name, fn] of cases) {
    try {
      await fn(env);
      console.log(`ext-host ok - ${name}`);
    } catch (err) {
      failures.push(`${name}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      console.error(`ext-host FAIL - ${name}: ${String(err)}`);
    }
  }
  env.team.dispose();
  if (failures.length) throw new Error(`${failures.length} extension-host case(s) failed:\n${failures.join('\n')}`);
}
