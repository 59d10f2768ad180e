// Tree provider cases: rows, status words, accessibility labels and request children.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobInfo } from '../../../src/core/exec/jobs';
import type { McpServerInfo } from '../../../src/core/mcp/manager';
import type { McpServerState } from '../../../src/core/mcp/state';
import { TeamView } from '../../../src/core/session/team-view';
import { WorktreeManager } from '../../../src/core/worktree/manager';
import type { HostChange } from '../../../src/vscode/host/team-host';
import { TeamTreeProvider } from '../../../src/vscode/views/team/team-tree';
import type { Case, Env } from './index';

type Provider = vscode.TreeDataProvider<unknown>;

async function items(p: Provider, parent?: unknown): Promise<{ node: unknown; item: vscode.TreeItem }[]> {
  const nodes = (await p.getChildren(parent)) ?? [];
  return Promise.all(nodes.map(async (node) => ({ node, item: await p.getTreeItem(node) })));
}

function label(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : item.label?.label ?? '';
}

/** Waits until the provider shows what `check` wants (file events arrive within ~100 ms). */
async function eventually(fn: () => Promise<void>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try { return await fn(); } catch (err) { if (Date.now() > end) throw err; }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function mcpInfo(state: McpServerState): McpServerInfo {
  const tools = state.kind === 'ready' ? [{ name: 'mcp__everything__echo', tool: 'echo', description: 'Echo.' }, { name: 'mcp__everything__add', tool: 'add', description: 'Add.' }] : [];
  return { name: 'everything', transport: 'stdio', commandLine: 'node everything.js', state, tools };
}

function jobInfo(state: 'running' | 'exited'): JobInfo {
  return { id: 'job1', owner: 'bob', command: 'npm run watch', state, exitCode: state === 'running' ? null : 0, signal: null, startedAt: 1, endedAt: state === 'running' ? null : 2 };
}

export const treeCases: Case[] = [
  ['team tree shows the lead and every teammate with status in words', async ({ api }: Env) => {
    const rows = await items(api.teamTree as Provider);
    assert.deepEqual(rows.map((r) => label(r.item)), ['lead', 'alice', 'bob']);
    const alice = rows[1]!.item;
    assert.equal(alice.id, 'member:alice:requests'); // it has a pending plan (see views/team/member-row.ts)
    assert.match(String(alice.description), /backend engineer · working · task #1 · 16k tokens/);
    assert.match(alice.accessibilityInformation!.label, /^alice, backend engineer, working, working on task 1: Write the parser/);
    assert.equal(alice.contextValue, 'member.teammate.working');
    const bob = rows[2]!.item;
    assert.match(String(bob.description), /tester · idle/);
    assert.match(bob.accessibilityInformation!.label, /idle/);
    assert.equal(rows[0]!.item.contextValue, 'member.lead');
  }],
  ['a pending plan request is a child of its teammate with approve/reject context', async ({ api }: Env) => {
    const [, alice] = await items(api.teamTree as Provider);
    const kids = await items(api.teamTree as Provider, alice!.node);
    assert.equal(kids.length, 1);
    assert.equal(kids[0]!.item.contextValue, 'request.plan.pending');
    assert.match(label(kids[0]!.item), /Plan from alice awaiting approval/);
    assert.match(String(kids[0]!.item.id), /^request:req_/);
  }],
  ['a status change in the files updates the team tree', async ({ api, team }: Env) => {
    await team.roster.setStatus('bob', 'working');
    await eventually(async () => {
      const bob = (await items(api.teamTree as Provider))[2]!.item;
      assert.match(bob.accessibilityInformation!.label, /^bob, tester, working/);
    });
    await team.roster.setStatus('bob', 'idle');
  }],
  ['a roster write that changes nothing shown (a lease heartbeat) does not redraw the team tree', async ({ api, team }: Env) => {
    const tree = api.teamTree as Provider;
    // Settled: the previous case's last write has been drawn.
    await eventually(async () => assert.match((await items(tree))[2]!.item.accessibilityInformation!.label, /^bob, tester, idle/));
    await new Promise((r) => setTimeout(r, 300));
    const redrawn: unknown[] = [];
    const sub = tree.onDidChangeTreeData!((e) => redrawn.push(e));
    try {
      // A heartbeat rewrites the roster with only a lease's time changed.
      for (let i = 0; i < 3; i++) {
        await team.roster.update((c) => { (c as unknown as Record<string, unknown>).beat_at = Date.now(); });
        await new Promise((r) => setTimeout(r, 150));
      }
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(redrawn.length, 0, 'no redraw for an unchanged view');
      await team.roster.setStatus('bob', 'working');
      await eventually(async () => assert.equal(redrawn.length, 1));
      // Only bob's row is redrawn: alice's pending plan row (Approve Plan) is not rebuilt under the pointer.
      const bob = (await items(tree))[2]!.node;
      assert.equal(redrawn[0], bob, 'the event names the row that changed, not the whole tree');
    } finally {
      sub.dispose();
      await team.roster.setStatus('bob', 'idle');
    }
  }],
  ['MCP server states and background jobs redraw only the row that shows something new', async ({ team }: Env) => {
    const host = { team, hasTeam: async () => true, onDidChange: new vscode.EventEmitter<ReadonlySet<HostChange>>() };
    let servers: McpServerInfo[] = [mcpInfo({ kind: 'starting' })];
    let jobs: JobInfo[] = [jobInfo('running')];
    const tree = new TeamTreeProvider({ view: new TeamView(team, () => new WorktreeManager(team.root)), hasTeam: host.hasTeam, onDidChange: host.onDidChange.event }, {
      activity: () => undefined, defaultModel: () => 'claude-sonnet-4-5', mcpServers: () => servers, jobs: (a) => (a === 'bob' ? jobs : []),
    });
    const redrawn: unknown[] = [];
    const sub = tree.onDidChangeTreeData((e) => redrawn.push(e));
    const activity = async (): Promise<void> => {
      host.onDidChange.fire(new Set(['activity']));
      await new Promise((r) => setTimeout(r, 100));
    };
    try {
      await activity(); // the first look: every row is new
      const rows = await items(tree as Provider);
      const [bob, server] = [rows.find((r) => label(r.item) === 'bob')!, rows.find((r) => label(r.item) === 'MCP: everything')!];
      assert.equal(server.item.description, 'starting');
      redrawn.length = 0;
      // The manager and the jobs say "changed" often (a tool list rebuilt, output arriving): nothing shown moved.
      for (let i = 0; i < 3; i++) {
        servers = [mcpInfo({ kind: 'starting' })];
        jobs = [jobInfo('running')];
        await activity();
      }
      assert.deepEqual(redrawn, [], 'no redraw while nothing shown changes');
      servers = [mcpInfo({ kind: 'ready', tools: 2 })];
      await activity();
      assert.deepEqual(redrawn, [server.node], 'the server row alone');
      assert.equal((await tree.getTreeItem(server.node as never)).description, 'ready, 2 tools');
      jobs = [jobInfo('exited')];
      await activity();
      assert.deepEqual(redrawn, [server.node, bob.node], "then bob's row (its job's child row) alone");
      servers = [];
      await activity();
      assert.deepEqual(redrawn.at(-1), undefined, 'a row that goes redraws the tree');
    } finally {
      sub.dispose();
      tree.dispose();
      host.onDidChange.dispose();
    }
  }],
  ['task tree groups by status with owner and blockers visible', async ({ api }: Env) => {
    const groups = await items(api.taskTree as Provider);
    assert.deepEqual(groups.map((g) => label(g.item)), ['In progress', 'Pending']);
    const [inProgress] = await items(api.taskTree as Provider, groups[0]!.node);
    assert.equal(label(inProgress!.item), '#1 Write the parser');
    assert.equal(inProgress!.item.description, '@alice');
    const [blocked] = await items(api.taskTree as Provider, groups[1]!.node);
    assert.match(String(blocked!.item.description), /unowned · blocked by #1/);
    assert.equal(blocked!.item.contextValue, 'task.pending.blocked');
    assert.match(blocked!.item.accessibilityInformation!.label, /pending, unowned, blocked by task 1/);
  }],
];

/** Run last: they add tasks to the board, which the command cases count. */
export const taskTreeRedrawCases: Case[] = [
  ['a task change redraws that task\'s row; a new task redraws its group, not the Tasks view', async ({ api, team }: Env) => {
    const tree = api.taskTree as Provider;
    const probe = await team.tasks.create({ subject: 'Redraw probe' });
    const pendingGroup = async () => (await items(tree)).find((g) => label(g.item) === 'Pending')!;
    let row: { node: unknown; item: vscode.TreeItem } | undefined;
    await eventually(async () => {
      row = (await items(tree, (await pendingGroup()).node)).find((r) => label(r.item) === `#${probe.id} Redraw probe`);
      assert.ok(row, 'the probe task shows under Pending');
    });
    await new Promise((r) => setTimeout(r, 300)); // its own creation's events drawn
    const redrawn: unknown[] = [];
    const sub = tree.onDidChangeTreeData!((e) => redrawn.push(e));
    try {
      await team.tasks.update(probe.id, { owner: 'bob' });
      await eventually(async () => assert.ok(redrawn.length > 0, 'a redraw for the new owner'));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(redrawn, [row!.node], 'the task\'s row alone');
      assert.match(String((await tree.getTreeItem(row!.node)).description), /@bob/);
      const group = (await pendingGroup()).node;
      await team.tasks.create({ subject: 'Second probe' });
      await eventually(async () => assert.ok(redrawn.length > 1, 'a redraw for the new task'));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(redrawn.slice(1), [group], 'the Pending group (its count and rows), not the whole view');
    } finally {
      sub.dispose();
    }
  }],
];
