// Worktree cases: the workspace is a git repository (vscode-ext-host.test.ts made it one);
// isolated teammates' worktrees are made through the core, as the runtime does on an isolated
// spawn, and the commands diff, merge (clean and conflicting), keep and remove them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { WorktreeManager } from '../../../src/core/worktree/manager';
import type { Case, Env } from './index';

const exec = promisify(execFile);
const run = <T>(id: string, args?: unknown) => vscode.commands.executeCommand<T>(id, args);
type Outcome = { name: string; status: string; files?: string[] } | undefined;

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await exec('git', args, { cwd })).stdout;
}

async function isolated(env: Env, name: string, file: string, text: string): Promise<string> {
  const wt = await new WorktreeManager(env.root).create(name);
  await env.team.spawnMember(name, 'isolated engineer', { worktree: wt.workdir, branch: wt.branch });
  await env.team.roster.setStatus(name, 'idle');
  await writeFile(join(wt.workdir, file), text);
  await git(wt.workdir, 'add', file);
  await git(wt.workdir, 'commit', '-q', '-m', `${name} edits ${file}`);
  return wt.workdir;
}

const exists = (p: string) => stat(p).then(() => true, () => false);

export const worktreeCases: Case[] = [
  ['an isolated teammate shows its branch, and its row offers the worktree commands', async (env) => {
    await isolated(env, 'carol', 'notes.txt', 'carol was here\n');
    const tree = env.api.teamTree!;
    const deadline = Date.now() + 5000;
    for (;;) {
      const rows = await tree.getChildren();
      const carol = rows.find((n) => n.nodeKind === 'member' && n.name === 'carol');
      const item = carol && await tree.getTreeItem(carol);
      if (item && String(item.contextValue).endsWith('.wt')) {
        assert.match(String(item.description), /wt\/carol/);
        assert.match(String(item.accessibilityInformation?.label), /on branch wt\/carol/);
        return;
      }
      if (Date.now() > deadline) throw new Error(`carol's row: ${JSON.stringify(item)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }],
  ['worktreeDiff {name} opens the diff against the base in an editor', async () => {
    const out = await run<Outcome>('agentTeams.worktreeDiff', { name: 'carol' });
    assert.deepEqual(out?.files, ['notes.txt']);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.languageId, 'diff');
    assert.match(doc!.getText(), /\+carol was here/);
  }],
  ['worktreeMerge {name} merges the branch into the current branch', async ({ root }) => {
    const out = await run<Outcome>('agentTeams.worktreeMerge', { name: 'carol' });
    assert.equal(out?.status, 'merged');
    assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'carol was here\n');
    assert.match(await git(root, 'log', '-1', '--format=%s'), /wt\/carol/);
  }],
  ['once merged and its teammate shut down, the row offers Remove Worktree (never removed by itself)', async (env) => {
    await env.team.roster.setStatus('carol', 'shutdown');
    const tree = env.api.teamTree!;
    tree.refresh(true);
    const deadline = Date.now() + 5000;
    for (;;) {
      const carol = (await tree.getChildren()).find((n) => n.nodeKind === 'member' && n.name === 'carol');
      const item = carol && await tree.getTreeItem(carol);
      if (item?.contextValue === 'member.teammate.shutdown.wt.removable') {
        assert.match(String(item.description), /wt\/carol merged, worktree removable/);
        break;
      }
      if (Date.now() > deadline) throw new Error(`carol's row: ${JSON.stringify(item)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await exists(new WorktreeManager(env.root).pathOf('carol')), true, 'offered, not removed');
  }],
  ['a conflicting merge reports the files and leaves nothing half-merged', async (env) => {
    await isolated(env, 'dave', 'shared.txt', 'dave\n');
    await isolated(env, 'erin', 'shared.txt', 'erin\n');
    assert.equal((await run<Outcome>('agentTeams.worktreeMerge', { name: 'dave' }))?.status, 'merged');
    const out = await run<Outcome>('agentTeams.worktreeMerge', { name: 'erin' });
    assert.equal(out?.status, 'conflict');
    assert.deepEqual(out?.files, ['shared.txt']);
    assert.equal(await readFile(join(env.root, 'shared.txt'), 'utf8'), 'dave\n');
    assert.equal(await git(env.root, 'status', '--porcelain', '--untracked-files=no'), '');
    assert.equal(await exists(join(env.root, '.git', 'MERGE_HEAD')), false);
  }],
  ['worktreeRemove refuses uncommitted work unless forced; force removes checkout and branch', async (env) => {
    const dir = new WorktreeManager(env.root).pathOf('erin');
    await writeFile(join(dir, 'scratch.txt'), 'unsaved thoughts\n');
    assert.equal(await run('agentTeams.worktreeRemove', { name: 'erin', force: false }), undefined);
    assert.equal(await exists(dir), true, 'refused: the checkout is still there');
    const out = await run<Outcome>('agentTeams.worktreeRemove', { name: 'erin', force: true });
    assert.equal(out?.status, 'removed');
    assert.equal(await exists(dir), false);
    assert.equal((await git(env.root, 'branch', '--list', 'wt/erin')).trim(), '');
  }],
  ['worktreeKeep refuses while the teammate works in it, then keeps the branch and drops the checkout', async (env) => {
    await env.team.roster.setStatus('dave', 'working');
    assert.equal(await run('agentTeams.worktreeKeep', { name: 'dave' }), undefined);
    const dir = new WorktreeManager(env.root).pathOf('dave');
    assert.equal(await exists(dir), true);
    await env.team.roster.setStatus('dave', 'idle');
    const out = await run<Outcome>('agentTeams.worktreeKeep', { name: 'dave', commit: true });
    assert.equal(out?.status, 'kept');
    assert.equal(await exists(dir), false);
    assert.equal((await git(env.root, 'branch', '--list', 'wt/dave')).trim(), 'wt/dave');
  }],
  ['.worktrees/ stays out of git status', async ({ root }) => {
    assert.doesNotMatch(await git(root, 'status', '--porcelain'), /\.worktrees/);
  }],
];
