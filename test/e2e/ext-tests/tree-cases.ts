// Tree provider cases: rows, status words, accessibility labels and request children.
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
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

export const treeCases: Case[] = [
  ['team tree shows the lead and every teammate with status in words', async ({ api }: Env) => {
    const rows = await items(api.teamTree as Provider);
    assert.deepEqual(rows.map((r) => label(r.item)), ['lead', 'alice', 'bob']);
    const alice = rows[1]!.item;
    assert.equal(alice.id, 'member:alice:requests'); // it has a pending plan (see team-tree.ts)
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
    let redraws = 0;
    const sub = tree.onDidChangeTreeData!(() => redraws++);
    try {
      // A heartbeat rewrites the roster with only a lease's time changed.
      for (let i = 0; i < 3; i++) {
        await team.roster.update((c) => { (c as unknown as Record<string, unknown>).beat_at = Date.now(); });
        await new Promise((r) => setTimeout(r, 150));
      }
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(redraws, 0, 'no redraw for an unchanged view');
      await team.roster.setStatus('bob', 'working');
      await eventually(async () => assert.equal(redraws, 1));
    } finally {
      sub.dispose();
      await team.roster.setStatus('bob', 'idle');
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
