// The VS Code approver with the real vscode API: MCP tools "always allowed" by an earlier
// version (kept in workspace state) become permission rules in the workspace settings.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createApprover } from '../../../src/vscode/approvals/approver';
import type { Case } from './index';

/** A workspace-state stand-in: the approver only gets and updates keys. */
function memento(init: Record<string, unknown>): vscode.Memento {
  const data = new Map(Object.entries(init));
  return {
    keys: () => [...data.keys()],
    get: <T>(key: string, fallback?: T) => (data.has(key) ? data.get(key) as T : fallback) as T,
    update: async (key: string, value: unknown) => void data.set(key, value),
  } as vscode.Memento;
}

export const approverCases: Case[] = [
  ['an MCP tool always allowed in the old workspace state is allowed unasked and written as a rule to permissions.allow', async () => {
    const config = () => vscode.workspace.getConfiguration('agentTeams');
    const before = config().inspect<unknown>('permissions.allow')?.workspaceValue;
    const state = memento({ 'agentTeams.alwaysAllowedMcpTools': ['mcp__old__lookup', 'mcp__old__other'] });
    const subs: vscode.Disposable[] = [];
    try {
      const approver = createApprover(state, undefined, subs);
      const answer = await approver.mcpTool!('lead', 'mcp__old__lookup', { q: 1 }, new AbortController().signal, ['mcp__old__lookup', 'mcp__old']);
      assert.equal(answer, 'allow');
      assert.deepEqual(config().inspect<unknown>('permissions.allow')?.workspaceValue, [...(Array.isArray(before) ? before : []), 'mcp__old__lookup']);
      assert.deepEqual(state.get('agentTeams.alwaysAllowedMcpTools'), ['mcp__old__other'], 'the migrated entry is dropped');
    } finally {
      for (const d of subs) d.dispose();
      await config().update('permissions.allow', before, vscode.ConfigurationTarget.Workspace);
    }
  }],
];
